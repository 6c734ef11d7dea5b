import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemasDir } from '../paths.ts';

// The input-space model (schemas/input-space.json): the one list of the values each dimension of
// each operation takes. The checks walk these values (never a list of their own), and
// `dss-conformance coverage --input-space` reads a run's records against the same file.

export type DimensionValue = string | number;

export interface InputSpace {
  classes: Record<string, string>;
  dimensions: Record<string, { about: string; values: DimensionValue[] }>;
  operations: Record<string, { dimensions: string[]; pairs: Array<[string, string]>; impossible?: Impossible[] }>;
}

/** Value combinations that cannot be sent: every value listed for one dimension with every value listed for the other. */
export type Impossible = Record<string, DimensionValue[] | string> & { why: string };

/** The dimensions of an impossible entry, with their values. */
export function impossibleParts(entry: Impossible): Array<[string, DimensionValue[]]> {
  return Object.entries(entry).filter((e): e is [string, DimensionValue[]] => e[0] !== 'why' && Array.isArray(e[1]));
}

/** Whether the values (of one combination) hold an impossible combination. */
export function isImpossible(entries: readonly Impossible[], values: Readonly<Record<string, DimensionValue>>): boolean {
  return entries.some((e) => impossibleParts(e).every(([d, vs]) => d in values && vs.some((v) => String(v) === String(values[d]))));
}

let model: InputSpace | undefined;

export function inputSpace(): InputSpace {
  model ??= JSON.parse(readFileSync(join(schemasDir, 'input-space.json'), 'utf8')) as InputSpace;
  return model;
}

/** The values of a dimension, e.g. values('version'). An unknown name is a programming error. */
export function values<T extends DimensionValue = DimensionValue>(dimension: string): readonly T[] {
  const d = inputSpace().dimensions[dimension];
  if (!d) throw new Error(`input-space.json has no dimension ${dimension}`);
  return d.values as T[];
}

/** What is wrong with a model, if anything: an operation naming a dimension the file lacks, a pair outside the operation's dimensions, a value listed twice, a class left undescribed. */
export function modelProblems(model: InputSpace = inputSpace()): string[] {
  const problems: string[] = [];
  for (const [name, d] of Object.entries(model.dimensions)) {
    if (!Array.isArray(d.values) || d.values.length === 0) problems.push(`dimension ${name} has no values`);
    else if (new Set(d.values).size !== d.values.length) problems.push(`dimension ${name} lists a value twice`);
    for (const v of d.values ?? []) if (typeof v === 'string' && /^<.*>$/.test(v) && !(v in model.classes)) problems.push(`dimension ${name}: class ${v} is not described under classes`);
  }
  for (const [name, op] of Object.entries(model.operations)) {
    for (const d of op.dimensions) if (!(d in model.dimensions)) problems.push(`${name}: no dimension ${d}`);
    if (new Set(op.dimensions).size !== op.dimensions.length) problems.push(`${name} lists a dimension twice`);
    for (const entry of op.impossible ?? []) {
      const parts = impossibleParts(entry);
      if (parts.length !== 2 || typeof entry.why !== 'string') problems.push(`${name}: an impossible entry must name two dimensions and why`);
      for (const [d, vs] of parts) {
        if (!op.dimensions.includes(d)) problems.push(`${name}: impossible entry names ${d}, not a dimension of the operation`);
        for (const v of vs) if (!(model.dimensions[d]?.values ?? []).some((x) => String(x) === String(v))) problems.push(`${name}: impossible entry names ${d} value ${v}, not a value of the dimension`);
      }
    }
    for (const pair of op.pairs) {
      if (pair.length !== 2 || pair[0] === pair[1]) problems.push(`${name}: pair ${JSON.stringify(pair)} is not two dimensions`);
      for (const d of pair) if (!op.dimensions.includes(d)) problems.push(`${name}: pair [${pair.join(', ')}] names ${d}, not a dimension of the operation`);
    }
  }
  return problems;
}

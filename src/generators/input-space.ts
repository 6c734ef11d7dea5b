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
  operations: Record<string, { dimensions: string[]; pairs: Array<[string, string]> }>;
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

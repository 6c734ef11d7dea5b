import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { UsageError, readJsonFile } from '../cli-errors.ts';
import { didYouMean } from '../cli-flags.ts';
import { fixturesDir } from '../paths.ts';
import { describeErrors } from '../schemas.ts';
import { flagByName, RUN_FLAGS } from './run-flags.ts';

export const configSchemaPath = join(fixturesDir, 'config.schema.json');

/** One setting read from a --config file: its value as a flag would give it, and the variable it came from. */
export interface ConfigValue {
  value: string | boolean | string[];
  /** Set when the file said {"$env": NAME}: the replay line names that variable for a secret. */
  env?: string;
}

let compiled: (((v: unknown) => boolean) & { errors?: unknown }) | undefined;

function schemaValidator() {
  compiled ??= new Ajv2020({ allErrors: false, strict: false }).compile(JSON.parse(readFileSync(configSchemaPath, 'utf8')) as object);
  return compiled;
}

/**
 * Reads a --config file: JSON, every key a run flag (a typo gets a suggestion), valid against
 * fixtures/config.schema.json, secrets only through {"$env": NAME}. Any problem is one UsageError line.
 */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Map<string, ConfigValue> {
  const label = `config ${file}`;
  const raw: unknown = readJsonFile(file, label);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${label}: must be a JSON object of run settings keyed by flag name`);
  const names = RUN_FLAGS.filter((f) => f.name !== 'config').map((f) => f.name);
  for (const key of Object.keys(raw)) {
    if (key === '$schema' || key === '$comment') continue;
    if (key === 'config') throw new UsageError(`${label}: a config file cannot name another config file`);
    if (!names.includes(key)) throw new UsageError(`${label}: unknown setting '${key}' (${didYouMean(key, names)}keys are run flag names without '--', see 'dss-conformance run --help')`);
  }
  const secretWritten = Object.entries(raw).find(([k, v]) => flagByName.get(k)?.secret && typeof v === 'string');
  if (secretWritten) throw new UsageError(`${label}: /${secretWritten[0]}: a secret is not written in a config file; give it as {"$env": "VARIABLE"}`);
  const validate = schemaValidator();
  if (!validate(raw)) throw new UsageError(`${label}: ${describeErrors(validate.errors as never)[0] ?? 'invalid'}`);

  const out = new Map<string, ConfigValue>();
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const flag = flagByName.get(key);
    if (!flag) continue;
    let text: unknown = value;
    let variable: string | undefined;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      variable = (value as { $env: string }).$env;
      text = env[variable];
      if (text === undefined || text === '') throw new UsageError(`${label}: /${key}: environment variable ${variable} is not set`);
    }
    if (flag.kind === 'boolean') out.set(key, { value: value as boolean });
    else if (flag.kind === 'list' || flag.kind === 'repeat') out.set(key, { value: Array.isArray(text) ? (text as string[]) : [String(text)] });
    else {
      let s = String(text);
      // A file named in the config is next to it, wherever the run is started from.
      if (flag.path && !(key === 'profile' && s === 'reference')) s = resolve(dirname(resolve(file)), s);
      out.set(key, { value: s, ...(variable ? { env: variable } : {}) });
    }
  }
  return out;
}

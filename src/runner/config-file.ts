import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { UsageError, readJsonFile } from '../cli-errors.ts';
import { didYouMean } from '../cli-flags.ts';
import { fixturesDir } from '../paths.ts';
import { describeErrors } from '../schemas.ts';
import { RUN_FLAGS, type FlagSpec, type SettingsCommand } from './run-flags.ts';

export const configSchemaPath = join(fixturesDir, 'config.schema.json');

export const RUN_SETTINGS: SettingsCommand = { command: 'run', flags: RUN_FLAGS, prefix: 'DSS_', schemaPath: configSchemaPath };

/** One setting read from a --config file: its value as a flag would give it, and the variable it came from. */
export interface ConfigValue {
  value: string | boolean | string[];
  /** Set when the file said {"$env": NAME}: the replay line names that variable for a secret. */
  env?: string;
}

const compiled = new Map<string, ((v: unknown) => boolean) & { errors?: unknown }>();

function schemaValidator(path: string) {
  let validate = compiled.get(path);
  if (!validate) compiled.set(path, (validate = new Ajv2020({ allErrors: false, strict: false }).compile(JSON.parse(readFileSync(path, 'utf8')) as object)));
  return validate;
}

/** Without a schema: each value as its kind takes it (a string, {"$env": NAME}, a number for an int, a list of strings). */
function kindProblem(flag: FlagSpec, value: unknown): string | undefined {
  const isEnv = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { $env?: unknown }).$env === 'string';
  if (flag.kind === 'boolean') return typeof value === 'boolean' ? undefined : 'must be true or false';
  if (isEnv(value) || typeof value === 'string') return undefined;
  if (flag.range) return Number.isInteger(value) ? undefined : 'must be an integer';
  if (flag.kind === 'list' || flag.kind === 'repeat') return Array.isArray(value) && value.every((v) => typeof v === 'string') ? undefined : 'must be a string or a list of strings';
  return 'must be a string or {"$env": "VARIABLE"}';
}

/**
 * Reads a --config file: JSON, every key a flag of the command (a typo gets a suggestion), valid
 * against its schema (run's: fixtures/config.schema.json), secrets only through {"$env": NAME}.
 * Any problem is one UsageError line.
 */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env, command: SettingsCommand = RUN_SETTINGS): Map<string, ConfigValue> {
  const label = `config ${file}`;
  const flagByName = new Map(command.flags.map((f) => [f.name, f]));
  const raw: unknown = readJsonFile(file, label);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${label}: must be a JSON object of ${command.command} settings keyed by flag name`);
  const names = command.flags.filter((f) => f.name !== 'config').map((f) => f.name);
  for (const key of Object.keys(raw)) {
    if (key === '$schema' || key === '$comment') continue;
    if (key === 'config') throw new UsageError(`${label}: a config file cannot name another config file`);
    if (!names.includes(key)) throw new UsageError(`${label}: unknown setting '${key}' (${didYouMean(key, names)}keys are ${command.command} flag names without '--', see 'dss-conformance ${command.command} --help')`);
  }
  const secretWritten = Object.entries(raw).find(([k, v]) => flagByName.get(k)?.secret && typeof v === 'string');
  if (secretWritten) throw new UsageError(`${label}: /${secretWritten[0]}: a secret is not written in a config file; give it as {"$env": "VARIABLE"}`);
  if (command.schemaPath) {
    const validate = schemaValidator(command.schemaPath);
    if (!validate(raw)) throw new UsageError(`${label}: ${describeErrors(validate.errors as never)[0] ?? 'invalid'}`);
  } else {
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      const flag = flagByName.get(key);
      const problem = flag && kindProblem(flag, value);
      if (problem) throw new UsageError(`${label}: /${key}: ${problem}`);
    }
  }

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

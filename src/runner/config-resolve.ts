import { UsageError } from '../cli-errors.ts';
import { parseFlags } from '../cli-flags.ts';
import { loadConfig, RUN_SETTINGS } from './config-file.ts';
import { numericHint, parseOptions, variableOf, type SettingsCommand } from './run-flags.ts';

export type Flags = Record<string, string | boolean | string[] | undefined>;

/** Where a setting's value came from; label is what an error about it names. */
export interface Source {
  kind: 'flag' | 'env' | 'config';
  label: string;
  /** The environment variable that holds it (env, or a config {"$env": NAME}). */
  variable?: string;
}

export interface ResolvedFlags {
  help: boolean;
  values: Flags;
  sources: Record<string, Source>;
}

const TRUE = /^(1|true|yes|on)$/i;
const FALSE = /^(0|false|no|off)$/i;

/** The run's settings: each from its flag, else its DSS_* variable, else the --config file (flag > env > file). */
export function resolveRunFlags(argv: string[], env: NodeJS.ProcessEnv = process.env): ResolvedFlags {
  const parsed = parseFlags('run', argv, parseOptions(), { numeric: numericHint }).values as Flags;
  if (parsed.help) return { help: true, values: parsed, sources: {} };
  return { help: false, ...resolveSettings(RUN_SETTINGS, parsed, env) };
}

/**
 * A command's settings from its parsed flags: each from its flag, else its variable, else the
 * --config file (flag > env > file). An empty variable counts as unset, as a shell's `DSS_X=` means.
 */
export function resolveSettings(command: SettingsCommand, parsed: Flags, env: NodeJS.ProcessEnv = process.env): { values: Flags; sources: Record<string, Source> } {
  const values: Flags = {};
  const sources: Record<string, Source> = {};
  const byName = new Map(command.flags.map((f) => [f.name, f]));
  const fromEnv = (name: string) => {
    const variable = variableOf(byName.get(name) ?? { name, kind: 'string' }, command);
    return env[variable] === '' ? undefined : env[variable];
  };
  const configFile = (parsed.config as string | undefined) ?? fromEnv('config');
  const config = configFile !== undefined ? loadConfig(configFile, env, command) : new Map();
  for (const flag of command.flags) {
    const name = flag.name;
    const given = parsed[name];
    const variableName = variableOf(flag, command);
    const variable = fromEnv(name);
    const filed = config.get(name);
    if (given !== undefined) {
      values[name] = flag.kind === 'list' ? splitList(given as string[]) : given;
      sources[name] = { kind: 'flag', label: `--${name}` };
    } else if (variable !== undefined) {
      values[name] = flag.kind === 'list' ? splitList([variable]) : flag.kind === 'repeat' ? variable.split('\n').filter((v) => v.trim() !== '') : flag.kind === 'boolean' ? envBoolean(variableName, variable) : variable;
      sources[name] = { kind: 'env', label: variableName, variable: variableName };
    } else if (filed !== undefined) {
      values[name] = flag.kind === 'list' ? splitList(filed.value as string[]) : filed.value;
      sources[name] = { kind: 'config', label: `config ${configFile}: ${name}`, ...(filed.env ? { variable: filed.env } : {}) };
    }
  }
  return { values, sources };
}

/** `--only a,b --only c` and `DSS_ONLY=a,b` alike: one list, blanks dropped. */
function splitList(items: string[]): string[] {
  return items.flatMap((item) => item.split(',')).map((s) => s.trim()).filter(Boolean);
}

function envBoolean(name: string, raw: string): boolean {
  if (TRUE.test(raw.trim())) return true;
  if (FALSE.test(raw.trim())) return false;
  throw new UsageError(`${name} must be true or false (1 or 0), got ${JSON.stringify(raw)}`);
}

import { DEFAULT_API_VERSION, KNOWN_VERSIONS } from './settings.ts';

// Every setting of `run`, once: the flag, its DSS_* variable, its --config key, its help line and
// how the replay line repeats it all come from this table, so a new setting is one entry here.

/** list: repeatable and comma-separated; repeat: repeatable, each value whole (a DSS_* variable holds one per line). */
export type FlagKind = 'string' | 'int' | 'boolean' | 'list' | 'repeat';

/** What reading a setting from a flag, a variable or a --config file needs to know of it (run's and receiver's). */
export interface FlagSpec {
  /** The flag without '--'; also the --config key; the variable is DSS_ + it in upper snake case. */
  name: string;
  kind: FlagKind;
  /** int: the accepted range. */
  range?: readonly [number, number];
  /** A secret: never printed; a --config file gives it as {"$env": NAME}. */
  secret?: boolean;
  /** A file: relative paths in a --config file are relative to that file's folder. */
  path?: boolean;
  /** Its variable, when not the command's prefix + the name (the receiver's secret keeps DSSC_RECEIVER_SECRET). */
  variable?: string;
}

export interface RunFlag extends FlagSpec {
  /** The value's placeholder in --help (strings and ints). */
  value?: string;
  /** Help text, wrapped by --help (a '\n' in it is just a space). The replay line names a secret's variable. */
  help: string;
  /**
   * How the replay line repeats it: 'value' (when set, as resolved), 'never' (does not shape the
   * results: where reports go, the config file itself, help); selection flags are handled by the
   * replay builder (a check's replay line swaps them for --only ID).
   */
  replay: 'value' | 'never' | 'selection' | 'special';
}

export const RUN_FLAGS: readonly RunFlag[] = [
  { name: 'base-url', kind: 'string', value: 'URL', replay: 'special', help: 'target base address; paths /api/... are appended. Without it the embedded reference\nis started on a free loopback port (that is what \'npm start\' does)' },
  { name: 'api-key', kind: 'string', value: 'K', secret: true, replay: 'special', help: 'user API key, sent as Bearer (required with --base-url)' },
  { name: 'org-key', kind: 'string', value: 'K', secret: true, replay: 'special', help: 'organization-scoped key for Basic; without it AUTH-002 is skipped' },
  { name: 'profile', kind: 'string', value: 'FILE', path: true, replay: 'value', help: 'target profile: answers to what the spec does not show; \'reference\' names the\nreference\'s (built in; the default for the embedded reference). Against --base-url\nwithout it, the checks that need such answers are skipped, with that reason' },
  { name: 'implementation', kind: 'string', value: '"NAME VERSION"', replay: 'never', help: 'what is tested, its name and version (e.g. "Acme Sync 4.2.1"), shown on the certificate\nwith the kit\'s version and the requirement catalogue\'s revision (default: the profile\'s implementation)' },
  { name: 'config', kind: 'string', value: 'FILE', path: true, replay: 'never', help: 'JSON file of run settings, keyed by flag name (fixtures/config.schema.json);\nsecrets as {"$env": "VARIABLE"}; relative paths in it are relative to its folder' },
  { name: 'reports', kind: 'string', value: 'DIR', path: true, replay: 'never', help: 'where the reports go (default: reports): results.ndjson, results.json, junit.xml,\nreport.html, summary.md, requests.json, deliveries.json; a run first removes all of them,\nso none is left from an earlier run' },
  { name: 'seed', kind: 'int', value: 'N', range: [0, 2 ** 31 - 1], replay: 'special', help: 'seed for generated data; the same seed regenerates the same requests\n(default: random, printed)' },
  { name: 'num-runs', kind: 'int', value: 'N', range: [1, 10_000], replay: 'value', help: 'fast-check runs per property check (default: 25); each of the six model-based error-handling checks does min(N, max(22, N/6)), so together they cost about one check' },
  { name: 'only', kind: 'list', value: 'SEL,...', replay: 'selection', help: 'run only these requirements: IDs (EHS-002), globs (WH-0*), areas (auth, webhooks)\nor levels (MUST, INFERRED, PROFILE); repeatable (see \'dss-conformance coverage\')' },
  { name: 'exclude', kind: 'list', value: 'SEL,...', replay: 'selection', help: 'leave these out (same forms as --only); left-out requirements are not selected,\nso the verdict is at best INCOMPLETE' },
  { name: 'timeout-ms', kind: 'int', value: 'N', range: [100, 600_000], replay: 'value', help: 'per-request timeout (default: 10000)' },
  { name: 'max-rps', kind: 'int', value: 'N', range: [1, 100_000], replay: 'value', help: 'request rate bound (default: 20 against --base-url, unbounded for the embedded reference)' },
  { name: 'api-version', kind: 'string', value: 'V', replay: 'special', help: `X-Service-Version the checks send: one of ${KNOWN_VERSIONS.join(', ')}\n(default ${DEFAULT_API_VERSION}), or 'all': one pass per version the profile declares supported\n(versions.supported, default all), each result labelled '@<version>'; the VER checks run in the first pass` },
  { name: 'shard', kind: 'string', value: 'I/N', replay: 'special', help: 'run slice I of N (vitest\'s sharding of the spec files, deterministic) with its own run id;\nits verdict is at best INCOMPLETE until \'dss-conformance merge\' joins the N report folders' },
  { name: 'fault', kind: 'list', value: 'NAME', replay: 'value', help: 'embedded reference only: break one rule of it (repeatable; see \'dss-conformance faults\')' },
  { name: 'variant', kind: 'list', value: 'NAME', replay: 'value', help: 'embedded reference only: make it conforming-but-unusual in one way (repeatable)' },
  { name: 'adapter', kind: 'string', value: 'FILE', path: true, replay: 'value', help: 'module whose default export makes the target adapter for the webhook checks\n(default: the built-in adapter, for the reference and targets shaped like it)' },
  { name: 'adapter-option', kind: 'repeat', value: 'K=V', replay: 'value', help: 'an option for the adapter (context.options), over the profile\'s adapter.options;\nrepeatable; secrets go in the profile as {"$env": NAME}, not here' },
  { name: 'receiver-host', kind: 'string', value: 'H', replay: 'value', help: 'where the capturing webhook receiver listens (default: 127.0.0.1)' },
  { name: 'receiver-port', kind: 'int', value: 'N', range: [0, 65535], replay: 'value', help: 'its port (default: 0, a free port)' },
  { name: 'receiver-public-url', kind: 'string', value: 'URL', replay: 'value', help: 'the URL the target must use to reach the receiver (a tunnel), when not host:port' },
  { name: 'source-db', kind: 'string', value: 'URL', secret: true, replay: 'special', help: 'postgres://USER:PASSWORD@HOST:PORT/DATABASE[?sslmode=require]: a Postgres the target can\nread, where the kit creates a table per webhook scenario (named dssc_<run id>_...) and writes\nits rows; the run drops those tables at the end and touches nothing else. Without it an\nembedded PostgreSQL (PGlite where none is installed) on the loopback is started for the\nwebhook checks' },
  { name: 'source-db-schema', kind: 'string', value: 'NAME', replay: 'value', help: 'the schema of --source-db (or of the embedded one) where the kit creates its tables\nand which the target is told (default: public); created when missing, never dropped' },
  { name: 'source-db-public-host', kind: 'string', value: 'H[:P]', replay: 'value', help: 'the host (and port) under which the target reaches --source-db, when not the URL\'s\n(a tunnel, a container network)' },
  { name: 'timestamp-tolerance-s', kind: 'int', value: 'N', range: [1, 86_400], replay: 'value', help: 'how far Service-Signature-Timestamp may be from arrival (default: 300)' },
  { name: 'clock-skew-s', kind: 'int', value: 'N', range: [0, 86_400], replay: 'value', help: 'how far Service-Signature-Timestamp may be ahead of arrival, for a sender\'s clock\nrunning ahead of the receiver\'s (default: 60)' },
  { name: 'max-duration', kind: 'string', value: 'D', replay: 'value', help: 'time budget of the whole run: 1800, 90s, 30m, 1h (default: 30m); when it runs out,\nunfinished checks are errors and the reports are written' },
  { name: 'max-retry-after-s', kind: 'int', value: 'N', range: [0, 86_400], replay: 'value', help: 'longest Retry-After a 429 is waited for (default: 60); longer gives up at once' },
  { name: 'max-response-bytes', kind: 'int', value: 'N', range: [1024, 2 ** 31], replay: 'value', help: 'answers past this size are cut and judged as such (default: 8388608)' },
  { name: 'baseline', kind: 'string', value: 'FILE', path: true, replay: 'value', help: 'known failures (fixtures/baseline.schema.json): listed failures are expected-fail;\na listed check that passes, or an expired entry, fails the run' },
  { name: 'allow-incomplete', kind: 'boolean', replay: 'value', help: 'exit 0 instead of 4 when nothing failed but not everything required was judged' },
];

export const flagByName = new Map(RUN_FLAGS.map((f) => [f.name, f]));

/** DSS_BASE_URL for base-url (DSS_RECEIVER_URL for the receiver's url, with its prefix). */
export const envName = (name: string, prefix = 'DSS_') => `${prefix}${name.toUpperCase().replace(/-/g, '_')}`;

/** A command whose settings come from flags, DSS_* variables and a --config file. */
export interface SettingsCommand {
  command: string;
  flags: readonly FlagSpec[];
  /** Of its variables: run's are DSS_NUM_RUNS; receiver's DSS_RECEIVER_NUM_RUNS, apart from run's. */
  prefix: string;
  /** The JSON Schema a --config file is validated against; without one, each value's type by its kind. */
  schemaPath?: string;
}

export const variableOf = (flag: FlagSpec, command: SettingsCommand) => flag.variable ?? envName(flag.name, command.prefix);

/** The parseArgs options: every table entry, plus -h/--help. */
export function parseOptions() {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const f of RUN_FLAGS) options[f.name] = { type: f.kind === 'boolean' ? 'boolean' : 'string', ...(f.kind === 'list' || f.kind === 'repeat' ? { multiple: true } : {}) };
  return options;
}

/** `must be between 0 and 2147483647 (not negative)` for an int flag, for `--seed -5`. */
export function numericHint(name: string): string | undefined {
  const range = flagByName.get(name)?.range;
  return range ? `must be between ${range[0]} and ${range[1]} (not negative)` : undefined;
}

/** The flag lines of `run --help`: the help text wrapped to 100 columns. */
export function flagHelp(): string {
  const width = 30;
  const lines: string[] = [];
  for (const f of RUN_FLAGS) {
    const head = `  --${f.name}${f.value ? ` ${f.value}` : ''}`;
    const [first = '', ...rest] = wrap(f.help.replace(/\n/g, ' '), 100 - width);
    if (head.length < width - 1) lines.push(head.padEnd(width) + first);
    else lines.push(head, ' '.repeat(width) + first);
    for (const more of rest) lines.push(' '.repeat(width) + more);
  }
  lines.push('  -h, --help'.padEnd(width) + 'this text');
  return lines.join('\n');
}

function wrap(text: string, columns: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > columns) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

import { EXIT, UsageError } from '../cli-errors.ts';
import { parseFlags } from '../cli-flags.ts';
import { consoleSafe } from '../report/safe-text.ts';
import { cleanSourceDb } from '../source-db/cleanup.ts';
import { cleanTarget } from './cleanup-target.ts';
import { parseDuration } from './duration.ts';
import { envName } from './run-flags.ts';

// `dss-conformance cleanup`: removes what runs left behind in the places they write to. Each such
// place is a LeftoverSource with its own flags (the source database; the target's resources, with
// --base-url, --api-key and --profile); the age bound and --dry-run are common to all, and a
// command names at least one place.

const HELP = `usage: dss-conformance cleanup --source-db URL [--older-than D] [--dry-run]
       dss-conformance cleanup --base-url URL --api-key K [--profile P] [--older-than D] [--dry-run]

Removes what earlier runs left behind. A run drops its tables in the source database at its end,
and deletes the resources it created on the target (as the profile's cleanup section says), also
when interrupted (SIGINT, SIGTERM, --max-duration); a run killed with SIGKILL (a lost CI runner),
or whose database or target failed to delete, leaves them until this command removes them.

  --source-db URL             the source database (or DSS_SOURCE_DB, which keeps the password out
                              of the process list): drops the tables named dssc_<run id>_... of
                              runs whose newest table is older than --older-than, in every schema
                              the role may drop them in; no other table. A run's age is in each
                              table's comment ('dss-conformance run <id> created <time>')
  --base-url URL              the target (or DSS_BASE_URL): lists each kind of resource the
                              profile's cleanup section can list, and deletes those named
                              dssc-<run id>-... of runs whose newest resource is older than
                              --older-than, dependents first, for at most 10 min (what is
                              left is said; run it again); nothing else is ever touched, and no
                              id that is empty, '.' or '..'
  --api-key K                 the target's user API key (or DSS_API_KEY, which keeps it out of the
                              process list)
  --profile P                 the target's profile (or DSS_PROFILE; default reference: the real
                              service's paths, DELETE /api/connections/{id} and GET lists)
  --older-than D              how long a run must have made nothing to count as dead: seconds, or
                              a number with s, m, h or d (90s, 30m, 48h, 1d; default: 1h, past
                              run's default --max-duration of 30m). 0 removes every such table or
                              resource: also those of a run still going, and those without a
                              creation time (tables of older kits, lists without createdAt)
  --dry-run                   list what would be dropped; drop nothing
  -h, --help                  this text

exit codes: 0 done (also when nothing was left); 1 a table could not be dropped or a resource
deleted (the others were), or the time for deleting ran out; 2 bad flags, URL or profile; 3 the
database or the target cannot be reached, stops answering, or the database refuses the login.`;

/** Past run's default --max-duration (30m): a run that made no table for this long is over. */
const DEFAULT_OLDER_THAN_MS = 3_600_000;

interface Common {
  olderThanMs: number;
  dryRun: boolean;
  out(line: string): void;
  warn(line: string): void;
}

/** One place runs leave things in; given when its flag (or that flag's DSS_* variable) is. */
interface LeftoverSource {
  /** Its flags, besides the common ones; the first one names the place. */
  flags: readonly string[];
  clean(values: Readonly<Record<string, { value: string; label: string }>>, common: Common): Promise<{ failed: number }>;
}

const SOURCES: readonly LeftoverSource[] = [
  { flags: ['source-db'], clean: (v, common) => cleanSourceDb(v['source-db']!.value, v['source-db']!.label, common) },
  { flags: ['base-url', 'api-key', 'profile'], clean: (v, common) => cleanTarget({ baseUrl: v['base-url']!, apiKey: v['api-key'], profile: v.profile?.value }, common) },
];

export async function cleanupCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { 'older-than': { type: 'string' }, 'dry-run': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };
  for (const source of SOURCES) for (const flag of source.flags) options[flag] = { type: 'string' };
  const parsed = parseFlags('cleanup', argv, options).values as Record<string, string | boolean | undefined>;
  if (parsed.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  // A flag, else its variable; an empty variable counts as unset (as for run).
  const given = (flag: string): { value: string; label: string } | undefined => {
    const value = parsed[flag];
    if (typeof value === 'string') return { value, label: `--${flag}` };
    const variable = env[envName(flag)];
    return variable ? { value: variable, label: envName(flag) } : undefined;
  };
  // A place named by a flag is cleaned, and no other; without one, each whose variable is set
  // (DSS_BASE_URL set for runs does not add the target to a cleanup --source-db).
  const byFlag = SOURCES.filter((s) => typeof parsed[s.flags[0]!] === 'string');
  const chosen = byFlag.length > 0 ? byFlag : SOURCES.filter((s) => given(s.flags[0]!) !== undefined);
  if (chosen.length === 0) throw new UsageError(`cleanup: name what to clean: ${SOURCES.map((s) => `--${s.flags[0]} (or ${envName(s.flags[0]!)})`).join(', ')} (see 'dss-conformance cleanup --help')`);
  const olderThanMs = parseDuration(parsed['older-than'] as string | undefined, '--older-than', { minMs: 0, maxMs: 365 * 86_400_000 }) ?? DEFAULT_OLDER_THAN_MS;
  const common: Common = {
    olderThanMs,
    dryRun: parsed['dry-run'] === true,
    out: (line) => process.stdout.write(consoleSafe(line) + '\n'),
    warn: (line) => process.stderr.write(consoleSafe(`dss-conformance: ${line}`) + '\n'),
  };
  let failed = 0;
  for (const source of chosen) {
    const values = Object.fromEntries(source.flags.flatMap((f) => (given(f) ? [[f, given(f)!]] : [])));
    failed += (await source.clean(values, common)).failed;
  }
  return failed > 0 ? EXIT.checkFailed : EXIT.ok;
}

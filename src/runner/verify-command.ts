import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT, UsageError } from '../cli-errors.ts';
import { parseFlags } from '../cli-flags.ts';
import { readEvents } from '../report/events.ts';
import { catalogueOf } from '../report/from-events.ts';
import { loadRequirements, type Catalogue } from '../report/results.ts';
import { consoleSafe } from '../report/safe-text.ts';
import { verifyFolder } from '../report/verify.ts';

const HELP = `usage: dss-conformance verify DIR

Checks that the reports in DIR (a run's or a merge's --reports folder) are what its results.ndjson
says: recomputes the stream's SHA-256 and compares it with the one results.json, junit.xml,
summary.md and report.html record, then folds the verdict again from the stream (the fold that
wrote results.json) and compares it with the verdict each of them states.

  -h, --help   this text

exit codes: 0 the digest and the verdict agree; 1 they do not (the line says which file and how);
2 DIR is not a report folder (no results.ndjson).`;

export async function verifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('verify', argv, { help: { type: 'boolean', short: 'h' } } as const, { positionals: true });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`verify takes one report folder, got ${positionals.length} (see 'dss-conformance verify --help')`);
  const dir = resolve(positionals[0]!);
  const outcome = readingFiles(`verify: ${dir}`, () => verifyFolder(dir, loadRequirements(halfOf(dir))));
  if (outcome.ok) {
    process.stdout.write(consoleSafe(outcome.line) + '\n');
    return EXIT.ok;
  }
  process.stderr.write(consoleSafe(`dss-conformance: verify: ${outcome.reason}`) + '\n');
  return EXIT.checkFailed;
}

/** A receiver run is folded with the receiver's requirements: its run-start says which half it judged. */
function halfOf(dir: string): Catalogue {
  const stream = join(dir, 'results.ndjson');
  try {
    return existsSync(stream) ? catalogueOf(readEvents(stream)) : 'service';
  } catch {
    return 'service'; // an unreadable stream: verifyFolder says why
  }
}

/** A file of the folder that cannot be read (a directory, no permission): one line, exit 2. */
export function readingFiles<T>(what: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) throw new UsageError(`${what}: cannot read ${(error as NodeJS.ErrnoException).path ?? 'a report file'} (${code})`);
    throw error;
  }
}

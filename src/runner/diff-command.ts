import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT, UsageError } from '../cli-errors.ts';
import { parseFlags } from '../cli-flags.ts';
import { diffMarkdown, diffRuns, diffText, readRunFolder, regressed } from '../report/diff.ts';
import { loadRequirements, type RunResult } from '../report/results.ts';
import { consoleSafe } from '../report/safe-text.ts';
import { readingFiles } from './verify-command.ts';

const HELP = `usage: dss-conformance diff OLD NEW [--markdown] [--markdown-file FILE]

Compares two runs' report folders (their results.json, or results.ndjson when that is all there
is), requirement by requirement: newly failing, newly not judged (judged in OLD, an error, a skip
or not run in NEW), still failing and fixed, each with its reason; run-level problems too.

  --markdown             print the comparison as Markdown (for a CI step summary) instead of text
  --markdown-file FILE   also append the Markdown to FILE (e.g. "$GITHUB_STEP_SUMMARY")
  -h, --help             this text

exit codes: 0 no regression; 1 something regressed (newly failing or newly not judged); 2 bad
input (a folder missing, not a run's reports).`;

export async function diffCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('diff', argv, { markdown: { type: 'boolean' }, 'markdown-file': { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const, { positionals: true });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  if (positionals.length !== 2) throw new UsageError(`diff takes two report folders, OLD and NEW, got ${positionals.length} (see 'dss-conformance diff --help')`);
  const requirements = loadRequirements();
  const [oldDir, newDir] = positionals as [string, string];
  const [oldRun, newRun] = [readingFiles(`diff: OLD ${oldDir}`, () => readRunFolder(resolve(oldDir), 'OLD', requirements)), readingFiles(`diff: NEW ${newDir}`, () => readRunFolder(resolve(newDir), 'NEW', requirements))];
  const [oldHalf, newHalf] = [halfJudged(oldRun), halfJudged(newRun)];
  // A service run and a receiver run share no requirement: every one would read as a regression.
  if (oldHalf && newHalf && oldHalf !== newHalf) throw new UsageError(`diff: OLD ${oldDir} is a ${oldHalf} run and NEW ${newDir} a ${newHalf} run: they judge different requirements and cannot be compared`);
  const d = diffRuns(oldRun, newRun, { old: oldDir, new: newDir });
  const markdown = diffMarkdown(d);
  const file = values['markdown-file'];
  if (file !== undefined) {
    try {
      appendFileSync(file, markdown + '\n');
    } catch (error) {
      throw new UsageError(`--markdown-file ${file}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  process.stdout.write(values.markdown ? markdown : consoleSafe(diffText(d)));
  return regressed(d) ? EXIT.checkFailed : EXIT.ok;
}

/** Which half of the catalogue a run judged, from its requirements' IDs; undefined when it lists none. */
function halfJudged(run: RunResult): 'receiver' | 'service' | undefined {
  const ids = (run.verdict?.requirements ?? []).map((r) => r.id);
  if (ids.length === 0) return undefined;
  return ids.every((id) => id.startsWith('RCV-')) ? 'receiver' : 'service';
}

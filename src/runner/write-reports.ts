import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../cli-errors.ts';
import type { RunEvent } from '../report/events.ts';
import { catalogueOf, foldEvents, type FoldedRun } from '../report/from-events.ts';
import { junitXml } from '../report/junit.ts';
import type { Redactor } from '../report/redact.ts';
import { renderHtml } from '../report/render-html.ts';
import { githubAnnotations, summaryMarkdown } from '../report/render-markdown.ts';
import { loadRequirements } from '../report/results.ts';
import { STREAM_FILE, streamDigest } from '../report/certificate.ts';

// The report files, each rendered from the run's events (folded once) and nothing else.

/** Every file a run writes in --reports; a run first removes them all, so none is left from an earlier run. */
export const OWNED_REPORTS = ['results.ndjson', 'results.json', 'junit.xml', 'report.html', 'summary.md', 'requests.json', 'deliveries.json'];

/** The stream (results.ndjson in dir) must be complete: every report written here carries its digest. */
export function writeReports(dir: string, events: readonly RunEvent[], redactor: Redactor): FoldedRun {
  const requirements = loadRequirements(catalogueOf(events));
  const folded = foldEvents(events, requirements);
  const { run } = folded;
  const digest = streamDigest(dir);
  if (digest) run.stream = { file: STREAM_FILE, sha256: digest };
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'junit.xml'), junitXml(run, redactor));
    writeFileSync(join(dir, 'results.json'), JSON.stringify(redactor.value(run), null, 2) + '\n');
    if (run.deliveries) writeFileSync(join(dir, 'deliveries.json'), JSON.stringify(redactor.value({ deliveries: run.deliveries, ...(run.deliveriesNotKept ? { notKept: run.deliveriesNotKept } : {}) }), null, 1) + '\n');
    writeFileSync(join(dir, 'report.html'), redactor.markup(renderHtml(folded, requirements)));
    writeFileSync(join(dir, 'summary.md'), redactor.text(summaryMarkdown(run)));
  } catch (error) {
    throw new UsageError(`--reports ${dir}: cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return folded;
}

/**
 * On GitHub Actions: the summary appended to the job's step summary, and ::error annotations
 * (returned, for stdout). A step summary that cannot be written costs the summary, not the run.
 */
export function ciOutputs(folded: FoldedRun, redactor: Redactor, env: NodeJS.ProcessEnv = process.env): string {
  const summaryFile = env.GITHUB_STEP_SUMMARY;
  if (summaryFile) {
    try {
      appendFileSync(summaryFile, redactor.text(summaryMarkdown(folded.run)) + '\n');
    } catch {
      // Not ours to fail the run over.
    }
  }
  return env.GITHUB_ACTIONS === 'true' ? redactor.text(githubAnnotations(folded.run)) : '';
}

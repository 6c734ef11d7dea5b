import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../cli-errors.ts';
import { catalogueDigest, sha256, shortDigest, STREAM_FILE } from './certificate.ts';
import { readEvents, type RunStartEvent } from './events.ts';
import { foldEvents } from './from-events.ts';
import type { Requirement, RunResult } from './results.ts';

// `dss-conformance verify DIR`: is this folder's certificate what its stream says? The stream's
// SHA-256 is recomputed and compared with the digest every report in the folder records; then the
// verdict is folded again from the stream, by the same fold that wrote results.json, and compared
// with the verdict every report states.

export interface Recorded {
  file: string;
  digest?: string | undefined;
  verdict?: string | undefined;
  /** results.json only: the whole verdict (levels, failures, not judged), compared field by field. */
  full?: RunResult['verdict'];
}

export type VerifyOutcome = { ok: true; line: string } | { ok: false; reason: string };

const first = (text: string, re: RegExp) => re.exec(text)?.[1];

/** What each report in the folder records: the stream's digest and the verdict. */
export function recordedIn(dir: string): Recorded[] {
  const read = (file: string) => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : undefined);
  const out: Recorded[] = [];
  const json = read('results.json');
  if (json !== undefined) {
    let run: RunResult;
    try {
      run = JSON.parse(json) as RunResult;
    } catch {
      throw new UsageError(`verify: ${join(dir, 'results.json')}: not JSON`);
    }
    if (typeof run !== 'object' || run === null || Array.isArray(run)) throw new UsageError(`verify: ${join(dir, 'results.json')}: not a dss-conformance results.json (not an object)`);
    out.push({ file: 'results.json', digest: run.stream?.sha256, verdict: run.verdict?.verdict, full: run.verdict });
  }
  const junit = read('junit.xml');
  if (junit !== undefined) out.push({ file: 'junit.xml', digest: first(junit, /<property name="results-sha256" value="([0-9a-f]{64})"\/>/), verdict: first(junit, /<property name="verdict" value="([^"]*)"\/>/) });
  const md = read('summary.md');
  if (md !== undefined) out.push({ file: 'summary.md', digest: first(md, /results\.ndjson SHA-256 `([0-9a-f]{64})`/), verdict: first(md, /^## \S+ dss-conformance: (.+)$/m) });
  const html = read('report.html');
  if (html !== undefined) {
    // What a reader sees is the banner's text, not its attribute: an edit of either is caught.
    const banner = /data-verdict="([^"]*)"[^>]*>([^<]*)</.exec(html);
    const verdict = banner && banner[1] !== banner[2] ? banner[2] : first(html, /data-verdict="([^"]*)"/);
    out.push({ file: 'report.html', digest: first(html, /data-results-sha256="([0-9a-f]{64})"/), verdict });
  }
  return out;
}

export function verifyFolder(dir: string, requirements: Requirement[]): VerifyOutcome {
  const file = join(dir, STREAM_FILE);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`verify: ${dir}: no such folder`);
  if (!existsSync(file)) throw new UsageError(`verify: ${dir}: no ${STREAM_FILE} (not the report folder of a run)`);
  const bytes = readFileSync(file);
  const digest = sha256(bytes);
  const recorded = recordedIn(dir);
  const withDigest = recorded.filter((r) => r.digest !== undefined);
  if (withDigest.length === 0) {
    return { ok: false, reason: `no report in ${dir} records the digest of ${STREAM_FILE} (${recorded.length ? recorded.map((r) => r.file).join(', ') : 'no reports'}; written by a kit before the certificate?)` };
  }
  for (const r of withDigest) {
    if (r.digest !== digest) return { ok: false, reason: `${STREAM_FILE} has SHA-256 ${shortDigest(digest)}…, ${r.file} records ${shortDigest(r.digest!)}…: the stream is not the one the reports were written from` };
  }

  const events = readEvents(file);
  const start = events.find((e): e is RunStartEvent => e.type === 'run-start');
  if (!start) return { ok: false, reason: `${STREAM_FILE} holds no run-start event: not a run's stream` };
  // The fold judges against the catalogue it is given: another revision could judge differently.
  const catalogue = catalogueDigest();
  if (start.catalogue && start.catalogue !== catalogue) {
    return { ok: false, reason: `the digest matches, but the run was judged against requirement catalogue ${shortDigest(start.catalogue)} and this kit has ${shortDigest(catalogue)}: verify with dss-conformance ${start.kitVersion}` };
  }
  const verdict = foldEvents(events, requirements).run.verdict;
  const word = verdict?.verdict ?? 'none';
  for (const r of recorded) {
    if (r.verdict !== undefined && r.verdict !== word) return { ok: false, reason: `${STREAM_FILE} folds to ${word}, ${r.file} says ${r.verdict}` };
    if (r.full && verdict) {
      for (const key of ['levels', 'failures', 'unjudged'] as const) {
        if (JSON.stringify(r.full[key]) !== JSON.stringify(verdict[key])) return { ok: false, reason: `${STREAM_FILE} folds to other ${key === 'levels' ? 'counts per level' : key === 'failures' ? 'failures' : 'requirements not judged'} than ${r.file} records` };
      }
    }
  }
  const stated = recorded.filter((r) => r.verdict !== undefined).map((r) => r.file);
  const same = stated.join() === withDigest.map((r) => r.file).join();
  return { ok: true, line: `verified: ${STREAM_FILE} sha256:${digest} is the stream ${withDigest.map((r) => r.file).join(', ')} record; folded again it is ${word}${stated.length ? `, as ${same ? 'they say' : `${stated.join(', ')} say`}` : ''}` };
}

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, UsageError } from '../cli-errors.ts';
import { shortDigest, STREAM_FILE } from './certificate.ts';
import { readEvents } from './events.ts';
import { catalogueOf, foldEvents } from './from-events.ts';
import { loadRequirements, type Level, type Requirement, type RunResult } from './results.ts';
import { cell } from './render-markdown.ts';
import { judged, type RequirementResult } from './verdict.ts';

// `dss-conformance diff OLD NEW`: what changed between two runs, requirement by requirement, so QA
// sees a regression without comparing two reports by hand. A regression is a requirement that
// newly fails or is newly not judged (it was judged before): either takes a CONFORMANT run away.

export interface DiffEntry {
  id: string;
  level: Level | 'RUN';
  /** Why it is in this list now (the new run's reason; for a fix, the old failure). */
  reason: string;
  /** For a newly not judged requirement: its status in the new run (error, skip (profile), not run). */
  status?: string;
  /** Its status in the old run, when that says something (a failure that became an error). */
  was?: string;
}

export interface RunSide {
  dir: string;
  verdict: string;
  runId: string;
  implementation?: string | undefined;
  catalogue?: string | undefined;
}

export interface RunDiff {
  old: RunSide;
  new: RunSide;
  newlyFailing: DiffEntry[];
  fixed: DiffEntry[];
  stillFailing: DiffEntry[];
  newlyNotJudged: DiffEntry[];
}

export const regressed = (d: RunDiff): boolean => d.newlyFailing.length > 0 || d.newlyNotJudged.length > 0;

/** A report folder's run: its results.json, or when there is none, the fold of its results.ndjson. */
export function readRunFolder(dir: string, label: string, requirements: Requirement[]): RunResult {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`diff: ${label} ${dir}: no such folder`);
  const json = join(dir, 'results.json');
  if (existsSync(json)) {
    const raw = readJsonFile(json, `diff: ${label} ${json}`) as Partial<RunResult> | null;
    if (!raw || typeof raw !== 'object' || !Array.isArray(raw.verdict?.requirements)) throw new UsageError(`diff: ${label} ${json}: not a dss-conformance results.json (no verdict.requirements)`);
    return wellFormed(raw as RunResult & { verdict: NonNullable<RunResult['verdict']> });
  }
  const stream = join(dir, STREAM_FILE);
  if (existsSync(stream)) {
    const events = readEvents(stream);
    // A receiver run's stream is folded with the receiver's half of the catalogue.
    return foldEvents(events, catalogueOf(events) === 'service' ? requirements : loadRequirements(catalogueOf(events))).run;
  }
  throw new UsageError(`diff: ${label} ${dir}: no results.json or ${STREAM_FILE} (not the report folder of a run)`);
}

/**
 * A results.json as the comparison reads it, whatever hand edited it: requirements without an id
 * and run-level lines that are not text are left out, and what is missing is empty.
 */
function wellFormed(run: RunResult & { verdict: NonNullable<RunResult['verdict']> }): RunResult {
  const lines = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const requirements = run.verdict.requirements.filter((r) => typeof r === 'object' && r !== null && typeof r.id === 'string');
  const aborted = typeof run.aborted?.message === 'string' ? run.aborted : undefined;
  return {
    ...run,
    runId: typeof run.runId === 'string' ? run.runId : '',
    errors: lines(run.errors),
    problems: lines(run.problems),
    aborted,
    verdict: { ...run.verdict, verdict: typeof run.verdict.verdict === 'string' ? run.verdict.verdict : 'none', requirements },
  } as RunResult;
}

const statusText = (r: Pick<RequirementResult, 'status' | 'skipClass'> | undefined) => (!r ? 'absent' : r.status === 'skip' && r.skipClass ? `skip (${r.skipClass})` : r.status);

/** Run-level problems, one line each, without what differs between two runs of the same problem. */
function runLevel(run: RunResult): string[] {
  const lines = [...run.errors, ...(run.problems ?? []), ...(run.aborted ? [`aborted: ${run.aborted.message}`] : [])].map((t) => t.split('\n')[0]!.trim());
  return lines.map((l) => run.runId.split('+').filter((x) => x.length >= 4).reduce((s, id) => s.split(id).join('<run id>'), l));
}

export function diffRuns(oldRun: RunResult, newRun: RunResult, dirs: { old: string; new: string }): RunDiff {
  const side = (run: RunResult, dir: string): RunSide => ({ dir, verdict: run.verdict?.verdict ?? 'none', runId: run.runId, implementation: run.implementation, catalogue: run.catalogue });
  const before = new Map((oldRun.verdict?.requirements ?? []).map((r) => [r.id, r]));
  const after = new Map((newRun.verdict?.requirements ?? []).map((r) => [r.id, r]));
  const out: RunDiff = { old: side(oldRun, dirs.old), new: side(newRun, dirs.new), newlyFailing: [], fixed: [], stillFailing: [], newlyNotJudged: [] };
  for (const id of [...new Set([...after.keys(), ...before.keys()])]) {
    const was = before.get(id);
    const now = after.get(id);
    const level = (now ?? was)!.level;
    if (now?.status === 'fail') {
      const list = was?.status === 'fail' ? out.stillFailing : out.newlyFailing;
      list.push({ id, level, reason: now.reason ?? 'failed', ...(was && was.status !== 'fail' ? { was: statusText(was) } : {}) });
    } else if (was?.status === 'fail' && now?.status === 'pass') {
      out.fixed.push({ id, level, reason: was.reason ?? 'failed' });
    } else if ((!now || !judged(now)) && (!was || judged(was))) {
      // Newly not judged: it was judged before (or is new to the catalogue) and is not now.
      out.newlyNotJudged.push({ id, level, status: statusText(now), reason: now ? now.reason ?? statusText(now) : 'not in the new run (a requirement the kit no longer has?)', ...(was ? { was: statusText(was) } : {}) });
    }
  }
  const [oldProblems, newProblems] = [runLevel(oldRun), runLevel(newRun)];
  for (const p of newProblems) (oldProblems.includes(p) ? out.stillFailing : out.newlyFailing).push({ id: 'run', level: 'RUN', reason: p });
  for (const p of oldProblems) if (!newProblems.includes(p)) out.fixed.push({ id: 'run', level: 'RUN', reason: p });
  return out;
}

const SECTIONS = [
  ['newlyFailing', 'newly failing'],
  ['newlyNotJudged', 'newly not judged'],
  ['stillFailing', 'still failing'],
  ['fixed', 'fixed'],
] as const;

const entryLine = (e: DiffEntry) => `${e.id} [${e.level}]${e.status ? ` ${e.status}` : ''}${e.was ? ` (was ${e.was})` : ''}: ${e.reason}`;

function headline(d: RunDiff): string {
  const catalogue = d.old.catalogue && d.new.catalogue && d.old.catalogue !== d.new.catalogue ? `; requirement catalogue changed (${shortDigest(d.old.catalogue)} → ${shortDigest(d.new.catalogue)})` : '';
  return `${d.old.verdict} → ${d.new.verdict} (run ${d.old.runId || '-'} → ${d.new.runId || '-'}${catalogue})`;
}

/** The console form: one line per change, the verdict line last. */
export function diffText(d: RunDiff): string {
  const out = [`dss-conformance diff: ${headline(d)}`];
  for (const [key, title] of SECTIONS) {
    if (d[key].length === 0) continue;
    out.push(`${title} (${d[key].length}):`, ...d[key].map((e) => `  ${entryLine(e)}`));
  }
  const n = d.newlyFailing.length + d.newlyNotJudged.length;
  out.push(regressed(d) ? `regressed: ${n} (newly failing ${d.newlyFailing.length}, newly not judged ${d.newlyNotJudged.length})` : `no regression (fixed ${d.fixed.length}, still failing ${d.stillFailing.length})`);
  return out.join('\n') + '\n';
}

/** The step-summary form: a table of counts, then each non-empty list; target text made inert by `cell`. */
export function diffMarkdown(d: RunDiff): string {
  const icon = regressed(d) ? '❌' : '✅';
  const out = [`## ${icon} dss-conformance diff: ${cell(headline(d))}`, ''];
  if (d.new.implementation || d.old.implementation) out.push(`Implementation ${cell(d.old.implementation ?? '(not named)')} → ${cell(d.new.implementation ?? '(not named)')}`, '');
  out.push('| change | requirements |', '|---|---:|', ...SECTIONS.map(([key, title]) => `| ${title} | ${d[key].length} |`), '');
  for (const [key, title] of SECTIONS) {
    if (d[key].length === 0) continue;
    out.push(`### ${title[0]!.toUpperCase()}${title.slice(1)} (${d[key].length})`, '', ...d[key].map((e) => `- **${cell(e.id)}** [${e.level}]${e.status ? ` ${cell(e.status)}` : ''}${e.was ? ` (was ${cell(e.was)})` : ''}: ${cell(e.reason)}`), '');
  }
  out.push(regressed(d) ? `**Regressed**: ${d.newlyFailing.length} newly failing, ${d.newlyNotJudged.length} newly not judged.` : 'No regression.', '');
  return out.join('\n');
}

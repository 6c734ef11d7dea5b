import { shortDigest } from './certificate.ts';
import type { FoldedRun } from './from-events.ts';
import type { CheckResult, Requirement, RunResult } from './results.ts';
import { escapeControls } from './safe-text.ts';
import type { RequirementStatus } from './verdict.ts';

// The top of report.html: what a certifier reads before anything else. The banner counts
// requirements (as the score does), the failures and errors come first, each a link to its row,
// and the certificate names what was tested, with what, and the digest of the stream behind it.

export const esc = (text: unknown): string =>
  escapeControls(String(text ?? '')).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A requirement row's anchor: the ID is [A-Z]+-[0-9]+, already safe in a fragment. */
export const requirementAnchor = (id: string): string => `req-${id}`;

/** A check outside the catalogue gets an anchor from its title; the index keeps two alike apart. */
export const strayAnchor = (c: CheckResult, index: number): string => `check-${index + 1}-${c.title.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-|-$/g, '').slice(0, 60)}`;

export const RUN_PROBLEMS_ANCHOR = 'run-problems';

/** 850 ms, 12.4 s, 3 min 05 s. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

const ORDER: RequirementStatus[] = ['fail', 'warn', 'error', 'pass', 'expected-fail', 'skip', 'not-run'];
const WORD: Record<RequirementStatus, string> = { fail: 'failed', warn: 'warned', error: 'error', pass: 'passed', 'expected-fail': 'expected-fail', skip: 'skipped', 'not-run': 'not run' };

/** `65 requirements: 3 failed, 60 passed, 2 skipped`, counted as the score counts them. */
export function bannerCounts(run: RunResult): string {
  const results = run.verdict?.requirements ?? [];
  const n = (s: RequirementStatus) => results.filter((r) => r.status === s).length;
  const parts = ORDER.filter((s) => n(s) > 0 || s === 'fail' || s === 'pass').map((s) => `${n(s)} ${WORD[s]}`);
  const runLevel = run.errors.length + (run.problems?.length ?? 0);
  return `${results.length} requirements: ${parts.join(', ')}${runLevel ? `; ${runLevel} run-level problem${runLevel === 1 ? '' : 's'}` : ''}`;
}

/** Every failed or unjudgeable requirement, stray failing check and run-level problem, each a link to where its evidence is. */
export function failureList(run: RunResult, requirements: Requirement[]): string {
  const levelOf = new Map(requirements.map((r) => [r.id, r.level]));
  const items: string[] = [];
  const results = run.verdict?.requirements ?? [];
  for (const status of ['fail', 'error'] as const) {
    for (const r of results.filter((x) => x.status === status)) {
      items.push(`<li class="${status === 'fail' ? 'bad' : 'err'}" data-failure="${esc(r.id)}"><a href="#${requirementAnchor(r.id)}">${esc(r.id)}</a> <span class="muted">[${esc(levelOf.get(r.id) ?? r.level)}]</span> <b>${status === 'fail' ? 'FAIL' : 'ERROR'}</b> ${esc(r.reason ?? '')}</li>`);
    }
  }
  const known = new Set(requirements.map((r) => r.id));
  run.checks.filter((c) => !known.has(c.id)).forEach((c, i) => {
    if (c.status === 'failed' || c.status === 'stale' || c.status === 'error') {
      items.push(`<li class="bad" data-failure="${esc(c.title)}"><a href="#${esc(strayAnchor(c, i))}">${esc(c.title)}</a> <b>${c.status === 'error' ? 'ERROR' : 'FAIL'}</b> ${esc(firstLine(c.message ?? c.reason))}</li>`);
    }
  });
  const runLevel = [...(run.aborted ? [`aborted: ${run.aborted.message}`] : []), ...(run.interrupted ? [`interrupted: ${run.interrupted}`] : []), ...run.errors, ...(run.problems ?? [])];
  for (const p of runLevel) items.push(`<li class="bad" data-failure="run"><a href="#${RUN_PROBLEMS_ANCHOR}">run</a> ${esc(firstLine(p))}</li>`);
  if (items.length === 0) return '';
  return `<section data-testid="failures"><h2>Failures and errors (${items.length})</h2><ol class="failures">${items.join('')}</ol></section>`;
}

/** What was tested, with what, and the stream it was judged from: the rows a certificate needs. */
export function certificateRows({ run, start }: FoldedRun): Array<[string, string, string?]> {
  const rows: Array<[string, string, string?]> = [
    ['Implementation', run.implementation ?? 'not named (run --implementation "NAME VERSION", or the profile\'s implementation)'],
    ['Target', run.target || '(none)'],
    ['Kit version', `${start?.tool ?? run.tool} ${run.kitVersion ?? start?.kitVersion ?? ''} (Node ${start?.node ?? ''})`],
  ];
  if (run.catalogue) rows.push(['Requirement catalogue', `sha256:${shortDigest(run.catalogue)}`, run.catalogue]);
  if (run.stream) rows.push(['Results stream', `${run.stream.file} sha256:${run.stream.sha256}`]);
  return rows;
}

const firstLine = (text: string | undefined) => (text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';

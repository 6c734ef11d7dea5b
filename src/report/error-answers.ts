import { validate } from '../schemas.ts';
import type { CheckResult } from './results.ts';

// Spec › Errors › Error body (all error statuses). ERR-001/002/003 judge every error answer the
// run's client saw, in every check, not only the ones specs/errors.spec.ts provokes: the answers
// are events of the stream, and the judgement is made when the stream is folded, so one process
// and the merged streams of several shards come to the same result.

/** One answer with status >= 400, as the client saw it (redacted by the event log). */
export interface ErrorAnswer {
  method: string;
  /** Path and query as sent (the run id and target-assigned ids in it). */
  path: string;
  status: number;
  /** The Content-Type header; absent when the answer had none. */
  contentType?: string | undefined;
  /** The parsed body, when it was JSON. */
  json?: unknown;
  /** The body's first characters, when it was not JSON (or empty). */
  text?: string | undefined;
  /** The body was cut off at --max-response-bytes, or too large to keep: not judged as a body. */
  cut?: boolean | undefined;
  /** The check that saw it (absent for hooks outside any check). */
  check?: string | undefined;
  /** The version pass it belongs to (--api-version all). */
  version?: string | undefined;
}

/** Where the suite's worker appends the answers (in --reports); the runner reads it after each pass. */
export const ERROR_ANSWERS_FILE = '.dssc-error-answers.ndjson';

/** The ERR requirements judged over the whole stream: their live check lines wait for the fold. */
export const runLevel = (id: string) => id in ERROR_RULES;

/** Bodies up to this many characters are kept whole; an error body is a few hundred. */
const KEEP_CHARS = 64 * 1024;

/** The event payload for an answer (the worker calls this for every answer with status >= 400). */
export function errorAnswer(o: { method: string; path: string; status: number; headers: Record<string, string>; body: string; truncated?: boolean | undefined; check?: string | undefined; version?: string | undefined }): ErrorAnswer {
  let json: unknown;
  const cut = o.truncated === true || o.body.length > KEEP_CHARS;
  if (!cut && o.body.trim() !== '') {
    try {
      json = JSON.parse(o.body) as unknown;
    } catch {
      json = undefined;
    }
  }
  return {
    method: o.method,
    path: o.path,
    status: o.status,
    ...(o.headers['content-type'] !== undefined ? { contentType: o.headers['content-type'] } : {}),
    ...(json !== undefined ? { json } : { text: o.body.slice(0, 120) }),
    ...(cut ? { cut: true } : {}),
    ...(o.check ? { check: o.check } : {}),
    ...(o.version ? { version: o.version } : {}),
  };
}

type Rule = (a: ErrorAnswer) => string | undefined;

/** The three rules, each saying what is wrong with one answer (undefined: nothing it judges). */
export const ERROR_RULES: Record<string, Rule> = {
  'ERR-001': (a) => {
    // A body cut at --max-response-bytes cannot be judged as a whole; the header rules still can.
    if (a.cut) return undefined;
    if (a.json === undefined) return `the body is not JSON (${JSON.stringify(a.text ?? '')})`;
    const errors = validate('error-body.schema.json', a.json);
    return errors.length > 0 ? `the body does not match the error shape: ${errors.join('; ')}` : undefined;
  },
  'ERR-002': (a) => {
    const status = (a.json as { status?: unknown } | undefined)?.status;
    // A status that is not an integer is ERR-001's finding (the shape), not a second one here.
    if (typeof status !== 'number') return undefined;
    return status === a.status ? undefined : `status ${status} in the body, ${a.status} on the wire`;
  },
  'ERR-003': (a) => {
    const type = a.contentType ?? '';
    return /^application\/(?:[\w.+-]+\+)?json\b/i.test(type) ? undefined : `Content-Type is ${JSON.stringify(type || 'absent')}`;
  },
};

const SHOWN = 5;

const where = (a: ErrorAnswer) => `${a.method} ${a.path} → ${a.status}${a.check ? ` (in ${a.check})` : ' (outside any check)'}`;

/**
 * The ERR checks' results over every error answer of the stream. Each ERR check that ran (the
 * provoking one in errors.spec.ts) is replaced by the judgement of the answers of its version
 * pass: failed with the first offending answers, else passed, else an error when no error answer
 * was seen at all. A skipped one (declared unsupported, not selected) stays as it is, and so does
 * the provoking check's own error when no answer breaks the rule (the fixed set was not all seen).
 */
export function judgeErrorAnswers(checks: readonly CheckResult[], answers: readonly ErrorAnswer[]): CheckResult[] {
  return checks.map((c) => {
    const rule = ERROR_RULES[c.id];
    if (!rule || c.status === 'skipped') return c;
    const seen = answers.filter((a) => (a.version ?? undefined) === (c.version ?? undefined));
    // Sorted, so the evidence does not depend on the order in which shards ran.
    const bad = seen.map((a) => ({ a, problem: rule(a) })).filter((x): x is { a: ErrorAnswer; problem: string } => x.problem !== undefined).sort((x, y) => order(x.a).localeCompare(order(y.a)));
    const base = { id: c.id, title: c.title, area: c.area, level: c.level, section: c.section, durationMs: c.durationMs, ...(c.version ? { version: c.version } : {}) };
    if (bad.length > 0) {
      // The same answer to the same request (a property check repeats itself) is one line.
      const distinct = new Map<string, number>();
      for (const { a, problem } of bad) {
        const line = `${where(a)}: ${problem}`;
        distinct.set(line, (distinct.get(line) ?? 0) + 1);
      }
      const lines = [...distinct].slice(0, SHOWN).map(([line, n]) => (n > 1 ? `${line} (${n} times)` : line));
      const more = distinct.size > SHOWN ? [`… and ${distinct.size - SHOWN} more`] : [];
      return { ...base, status: 'failed', message: [`${bad.length} of the ${seen.length} error answers the run saw break this rule:`, ...lines, ...more].join('\n') };
    }
    // The provoking check's own failure or error (nothing provoked, no answer) stands.
    if (c.status !== 'passed') return c;
    if (seen.length === 0) return { ...base, status: 'error', reason: 'no error answer was seen: nothing to judge' };
    const checks = new Set(seen.map((a) => a.check ?? '')).size;
    return { ...base, status: 'passed', note: `judged ${seen.length} error answer${seen.length === 1 ? '' : 's'} seen in ${checks} check${checks === 1 ? '' : 's'}` };
  });
}

const order = (a: ErrorAnswer) => `${a.check ?? ''}\u0000${a.method} ${a.path}\u0000${String(a.status).padStart(3, '0')}`;

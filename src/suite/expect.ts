import { formatExchange } from '../client/format.ts';
import type { ApiResponse } from '../client/http-client.ts';
import { validate } from '../schemas.ts';
import { redactor } from './context.ts';

/** A conformance failure: what was expected, what came back, and the exchange that shows it. */
export class CheckFailure extends Error {
  override name = 'CheckFailure';
}

export function fail(message: string, ...responses: ApiResponse[]): never {
  const evidence = responses.map((r) => formatExchange(r.exchange, redactor()));
  throw new CheckFailure(redactor().text([message, ...evidence].join('\n\n')));
}

export function expectStatus(res: ApiResponse, expected: number | ((status: number) => boolean), what: string): void {
  const ok = typeof expected === 'number' ? res.status === expected : expected(res.status);
  if (!ok) fail(`${what}: expected ${typeof expected === 'number' ? `status ${expected}` : 'another status'}, got ${res.status}`, res);
}

export const is2xx = (s: number) => s >= 200 && s < 300;
export const is4xx = (s: number) => s >= 400 && s < 500;

export function expectSchema(value: unknown, ref: string, what: string, res: ApiResponse): void {
  const errors = validate(ref, value);
  if (errors.length > 0) fail(`${what} does not match ${ref}:\n  ${errors.join('\n  ')}`, res);
}

/** The object under `data`, or undefined when the target used the spec's optional-data leeway. */
export function dataOf(res: ApiResponse): Record<string, unknown> | undefined {
  const body = res.json as { data?: unknown } | undefined;
  return body && typeof body === 'object' && body.data && typeof body.data === 'object' ? (body.data as Record<string, unknown>) : undefined;
}

/**
 * The coverage phase of a check: every enumerated case is sent, and each one the target gets wrong
 * is named (`EHS-006 subscribers = "a@x.org" answered 200`); the first two are shown in full.
 */
export async function expectEveryCase<C extends { name: string }>(id: string, cases: readonly C[], send: (c: C) => Promise<ApiResponse>, ok: (status: number, c: C) => boolean, expected: string): Promise<void> {
  const bad: Array<{ c: C; res: ApiResponse }> = [];
  for (const c of cases) {
    const res = await send(c);
    if (!ok(res.status, c)) bad.push({ c, res });
  }
  if (bad.length === 0) return;
  const listed = bad.slice(0, 12).map(({ c, res }) => `  ${id} ${c.name}: answered ${res.status}`);
  fail([`${bad.length} of ${cases.length} coverage cases were not answered ${expected}:`, ...listed, ...(bad.length > 12 ? [`  … and ${bad.length - 12} more`] : [])].join('\n'), ...bad.slice(0, 2).map((b) => b.res));
}

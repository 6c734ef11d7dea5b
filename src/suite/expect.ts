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

import type { TestContext } from 'vitest';
import type { DeliveredRecord } from './webhook-hash.ts';
import { describeDelivery, type Delivery } from '../receiver/index.ts';
import { validate } from '../schemas.ts';
import { need, redactor, Unjudgeable } from './context.ts';
import { CheckFailure } from './expect.ts';
import type { Scenario } from './webhook-fixtures.ts';

// How the webhook checks judge deliveries (specs/webhooks.spec.ts): a failure shows the first
// offending deliveries, and a delivery whose content cannot be judged is said so, not failed.

export function fail(message: string, deliveries: Delivery[] = []): never {
  const shown = deliveries.slice(0, 2).map((d) => describeDelivery(d, (s) => redactor().text(s)));
  throw new CheckFailure(redactor().text([message, ...shown].join('\n\n')));
}

export async function given(t: TestContext, get: () => Promise<Scenario>): Promise<Scenario> {
  const s = await need(t, 'a model sync delivering to the capturing receiver', get);
  if (s.runs[0]!.deliveries.length === 0) fail(`the first run (${s.runs[0]!.outcome.status}) delivered nothing to the receiver`);
  return s;
}

/**
 * Checks every delivery of a scenario; the message lists the first offenders. A failure found on
 * some wins over deliveries whose content could not be judged (json()).
 */
export function each(s: Scenario | readonly Scenario[], problem: (d: Delivery, s: Scenario) => string | undefined): void {
  const of = new Map((Array.isArray(s) ? s : [s]).flatMap((sc: Scenario) => sc.runs.flatMap((r) => r.deliveries.map((d) => [d, sc] as const))));
  const all = [...of.keys()];
  const bad: Array<{ d: Delivery; p: string }> = [];
  let unjudged: Unjudgeable | undefined;
  let unjudgedCount = 0;
  for (const d of all) {
    try {
      const p = problem(d, of.get(d)!);
      if (p) bad.push({ d, p });
    } catch (error) {
      if (!(error instanceof Unjudgeable)) throw error;
      unjudged ??= error;
      unjudgedCount++;
    }
  }
  const notJudged = unjudgedCount > 0 ? ` (${unjudgedCount} not judged: ${unjudged!.message})` : '';
  if (bad.length > 0) fail(`${bad.length} of ${all.length} deliveries${notJudged}: ${bad[0]!.p}`, bad.map((x) => x.d));
  if (unjudged) throw new Unjudgeable(`${unjudgedCount} of ${all.length} deliveries: ${unjudged.message}`);
}

/**
 * The parsed body of a delivery. Past its storage cap the receiver keeps no body (every delivery
 * is still listed, with its headers and violations): its content cannot be judged.
 */
export function json(d: Delivery): unknown {
  if (d.dropped) throw new Unjudgeable(`the body of delivery #${d.seq} was not kept (the receiver's storage cap was reached), so its content cannot be judged`);
  return d.json;
}

/**
 * A header judged by its property in webhook-delivery-headers.schema.json. Media types and content
 * codings are case-insensitive (RFC 9110), so those values are compared in lower case.
 */
export function headerProblem(d: Delivery, name: string, caseInsensitive = false): string | undefined {
  const raw = d.headers[name];
  const value = caseInsensitive && raw !== undefined ? raw.toLowerCase() : raw;
  const errors = validate(`webhook-delivery-headers.schema.json#/properties/${name}`, value);
  return errors.length === 0 ? undefined : `${name} ${JSON.stringify(raw ?? null)}${raw === undefined ? ' (absent)' : ''}`;
}

export const records = (d: Delivery): DeliveredRecord[] =>
  ((json(d) as { object?: { records?: unknown } } | undefined)?.object?.records as never) ?? [];
export const deliveredIds = (ds: Delivery[]) => ds.flatMap((d) => records(d).map((r) => String(r.fields?.id)));

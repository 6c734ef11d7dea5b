import { TestRunner, type TestContext } from 'vitest';

// A check that waits (for a schema cache, for a sync run to end) says what for, through a test
// annotation: the runner's heartbeat then prints "waiting for <that>, 12 s of 30 s" instead of only
// naming the check. Annotations travel from the worker to the runner's reporter as they are made.

export const WAIT_ANNOTATION = 'dssc-wait';
export const WAIT_END_ANNOTATION = 'dssc-wait-end';
/** A delivery the receiver got, as its report record: the runner writes it to the stream as it arrives. */
export const DELIVERY_ANNOTATION = 'dssc-delivery';

/**
 * vitest locates each annotation in the test file from a stack trace it takes as the annotation
 * is made, and maps every frame through the source maps: about a tenth of a webhook pass's CPU,
 * for a location no reader of ours uses. With no frames captured the location is left out.
 */
export function annotateUnlocated(context: TestContext, message: string, type: string): Promise<unknown> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return context.annotate(message, type);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

async function annotate(message: string, type: string): Promise<void> {
  const test = TestRunner.getCurrentTest();
  // Outside a test (a beforeAll) there is no one to tell; the heartbeat still names the check.
  if (!test?.context) return;
  await annotateUnlocated(test.context, message, type).catch(() => undefined);
}

/** Runs fn while the heartbeat names what it waits for, with the bound (ms) when there is one. */
export async function waitingFor<T>(what: string, boundMs: number | undefined, fn: () => Promise<T>): Promise<T> {
  await annotate(JSON.stringify({ what, ...(boundMs !== undefined ? { boundMs } : {}) }), WAIT_ANNOTATION);
  try {
    return await fn();
  } finally {
    await annotate('', WAIT_END_ANNOTATION);
  }
}

/**
 * Tells the runner of a delivery as the receiver records it, through whichever check is running
 * (the scenario it belongs to may have been started by another). The record is already redacted.
 * With no check running the runner still gets it from the pass's delivery log.
 */
export function announceDelivery(record: unknown): void {
  void annotate(JSON.stringify(record), DELIVERY_ANNOTATION);
}

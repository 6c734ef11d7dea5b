import { test, type TestContext } from 'vitest';
import { TransportError } from '../client/http-client.ts';
import { redactor, Unjudgeable, Unmet, UnsupportedOperation } from './context.ts';
import { annotateUnlocated } from './progress.ts';

/** The prefix by which the collector tells an unjudgeable answer (status error) from a failure. */
export const UNJUDGEABLE = 'UNJUDGEABLE: ';

/** The TransportError behind an error, looking through wrappers (fast-check reports a cause). */
export function transportCause(error: unknown): TransportError | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TransportError) return e;
  }
  return undefined;
}

/**
 * fast-check reports a failed property with the counterexample in its message and the shrunk
 * run's own error (the finding, with the request and response that show it) as its cause, which
 * no report reads. The finding comes first, then the counterexample and how to replay it, so every
 * report shows the last exchange. The kit's own signals (a precondition, an unjudgeable answer)
 * are left as they are: the handlers below tell them apart.
 */
export function withShrunkEvidence(error: unknown): unknown {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (!(error instanceof Error) || !(cause instanceof Error) || !/^Property failed/.test(error.message)) return error;
  if (cause instanceof Unmet || cause instanceof Unjudgeable || transportCause(cause)) return error;
  // The counterexample, its seed and path, and how far it was shrunk: up to fast-check's first blank line.
  const report = error.message.split(/\n\s*\n/)[0]!;
  if (!cause.message.includes(report)) cause.message = `${cause.message}\n\n${report}`;
  return cause;
}

/** The annotation type of a note: what a passing check saw that a reader may want (the collector keeps it). */
export const NOTE_ANNOTATION = 'dssc-note';

/** Records what the check saw, e.g. which of the accepted outcomes the target gave. */
export async function note(t: TestContext, message: string): Promise<void> {
  await annotateUnlocated(t, redactor().text(message), NOTE_ANNOTATION).catch(() => undefined);
}

/**
 * A conformance check: a vitest test titled with its requirement ID, in which a precondition that
 * is not met (a missing profile answer, an adapter that cannot do something) is a skip with the
 * reason, wherever it is found, and never a failure of this check. A request that got no
 * judgeable answer (timeout, throttled past the budget, refused, the run's time budget spent)
 * is an error: neither a pass nor a failure of the rule.
 */
export function check(title: string, body: (t: TestContext) => Promise<void>): void {
  test(title, async (t) => {
    try {
      await body(t);
    } catch (thrown) {
      const error = withShrunkEvidence(thrown);
      if (error instanceof UnsupportedOperation) t.skip(redactor().text(`unsupported: ${error.message}`));
      if (error instanceof Unmet) t.skip(redactor().text(`precondition not met: ${error.message}`));
      const transport = transportCause(error);
      if (transport) throw new Error(UNJUDGEABLE + redactor().text(transport.message.split('\n')[0] ?? 'no answer'));
      if (error instanceof Unjudgeable) throw new Error(UNJUDGEABLE + redactor().text(error.message.split('\n')[0] ?? 'no answer'));
      throw error;
    }
  });
}

import { test, type TestContext } from 'vitest';
import { redactor, Unmet } from './context.ts';

/**
 * A conformance check: a vitest test titled with its requirement ID, in which a precondition that
 * is not met (a missing profile answer, an adapter that cannot do something) is a skip with the
 * reason, wherever it is found, and never a failure of this check.
 */
export function check(title: string, body: (t: TestContext) => Promise<void>): void {
  test(title, async (t) => {
    try {
      await body(t);
    } catch (error) {
      if (error instanceof Unmet) t.skip(redactor().text(`precondition not met: ${error.message}`));
      throw error;
    }
  });
}

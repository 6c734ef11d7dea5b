import fc from 'fast-check';
import { expect, test } from 'vitest';
import { withShrunkEvidence } from '../../src/suite/check.ts';
import { Unmet } from '../../src/suite/context.ts';
import { CheckFailure } from '../../src/suite/expect.ts';

// A failed property's report leads with the shrunk run's finding and its exchange (fast-check
// keeps them in the error's cause, which no report reads), then the counterexample.

const EXCHANGE = '> POST http://127.0.0.1:1/api/connections\n< 400 (2 ms)\n< {"error":"no"}';

async function failure(cause: (n: number) => Error): Promise<unknown> {
  try {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), async (n) => {
      if (n >= 10) throw cause(n);
    }), { seed: 42, numRuns: 100 });
  } catch (error) {
    return error;
  }
  throw new Error('the property did not fail');
}

test('the shrunk counterexample\'s request and response come first, the counterexample after', async () => {
  const error = withShrunkEvidence(await failure((n) => new CheckFailure(`POST /api/connections: expected a 2xx, got 400 (n=${n})\n\n${EXCHANGE}`)));
  expect(error).toBeInstanceOf(CheckFailure);
  const message = (error as Error).message;
  // Shrunk to the smallest failing value: the finding and the exchange are that run's.
  expect(message.split('\n')[0]).toBe('POST /api/connections: expected a 2xx, got 400 (n=10)');
  expect(message).toContain(EXCHANGE);
  expect(message).toMatch(/\n\nProperty failed after \d+ tests\n\{ seed: 42, path: "[\d:]+", endOnFailure: true \}\nCounterexample: \[10\]\nShrunk \d+ time\(s\)$/);
});

test('the kit\'s own signals inside a property are left to the check\'s handlers', async () => {
  const error = await failure(() => new Unmet('no kind'));
  expect(withShrunkEvidence(error)).toBe(error);
  const plain = new Error('not a property');
  expect(withShrunkEvidence(plain)).toBe(plain);
});

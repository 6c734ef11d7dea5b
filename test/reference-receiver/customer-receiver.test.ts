import { expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs file, as a customer would write it
import { startCustomerReceiver } from '../fixtures/customer-receiver.mjs';
import { failedIds, runInProcess } from '../receiver-conformance/in-process.ts';

// Issue 17's acceptance: `dss-conformance receiver` against a receiver written the way a customer
// would (test/fixtures/customer-receiver.mjs: fastify, a few dozen lines, from the spec) finds it
// CONFORMANT, and the same receiver with its secret comparison forgotten NOT CONFORMANT, naming
// RCV-002. One command line each, in this process (the command holds no state between runs), the
// secret from the environment as a user's CI gives it.

const SECRET = 'whsec_customer-7Gq2xVb9LmN4pR8s';

async function judgeCustomer(checkSecret: boolean) {
  const receiver = await startCustomerReceiver({ secret: SECRET, checkSecret });
  try {
    const args = ['receiver', '--url', receiver.url, '--inspect-url', receiver.inspectUrl, '--seed', '20261126', '--num-runs', '5'];
    return await runInProcess(args, { DSSC_RECEIVER_SECRET: SECRET, NO_COLOR: '1' });
  } finally {
    await receiver.close();
  }
}

test('the customer receiver is CONFORMANT; without its secret comparison, NOT CONFORMANT naming RCV-002', async () => {
  const checked = await judgeCustomer(true);
  const unchecked = await judgeCustomer(false);
  expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  expect(checked.stdout).toMatch(/verdict: CONFORMANT/);
  expect(checked.result?.checks.filter((c) => c.status !== 'passed').map((c) => c.id)).toEqual([]);

  expect(unchecked.code, unchecked.stdout + unchecked.stderr).toBe(1);
  expect(unchecked.stdout).toMatch(/verdict: NOT CONFORMANT/);
  expect(unchecked.stdout).toMatch(/RCV-002/);
  expect(unchecked.result && failedIds(unchecked.result)).toEqual(['RCV-002']);
  for (const run of [checked, unchecked]) expect(run.stdout + run.stderr).not.toContain(SECRET);
});

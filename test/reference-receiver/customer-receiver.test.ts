import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs file, as a customer would write it
import { startCustomerReceiver } from '../fixtures/customer-receiver.mjs';
import { failedIds, runCli, runReports } from '../suite/run-cli.ts';

// Issue 17's acceptance: `dss-conformance receiver` against a receiver written the way a customer
// would (test/fixtures/customer-receiver.mjs: fastify, a few dozen lines, from the spec) finds it
// CONFORMANT, and the same receiver with its secret comparison forgotten NOT CONFORMANT, naming
// RCV-002. One CLI run each, both at once, as a user runs it (the secret from the environment).

const SECRET = 'whsec_customer-7Gq2xVb9LmN4pR8s';

async function judgeCustomer(checkSecret: boolean) {
  const receiver = await startCustomerReceiver({ secret: SECRET, checkSecret });
  try {
    const reports = mkdtempSync(join(tmpdir(), 'dssc-customer-'));
    const args = ['receiver', '--url', receiver.url, '--inspect-url', receiver.inspectUrl, '--seed', '20261126', '--num-runs', '5', '--reports', reports];
    const run = await runCli(args, { DSSC_RECEIVER_SECRET: SECRET });
    return { ...run, ...runReports(reports) };
  } finally {
    await receiver.close();
  }
}

test('the customer receiver is CONFORMANT; without its secret comparison, NOT CONFORMANT naming RCV-002', async () => {
  const [checked, unchecked] = await Promise.all([judgeCustomer(true), judgeCustomer(false)]);
  expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  expect(checked.stdout).toMatch(/CONFORMANT/);
  expect(checked.result?.checks.filter((c) => c.status !== 'passed').map((c) => c.id)).toEqual([]);

  expect(unchecked.code, unchecked.stdout + unchecked.stderr).toBe(1);
  expect(unchecked.stdout).toMatch(/NOT CONFORMANT/);
  expect(unchecked.stdout).toMatch(/RCV-002/);
  expect(unchecked.result && failedIds(unchecked.result)).toEqual(['RCV-002']);
  for (const run of [checked, unchecked]) expect(run.stdout + run.stderr).not.toContain(SECRET);
});

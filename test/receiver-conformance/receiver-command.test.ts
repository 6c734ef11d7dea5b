import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { foldEvents } from '../../src/report/from-events.ts';
import { readEvents } from '../../src/report/events.ts';
import { loadRequirements } from '../../src/report/results.ts';
import { runCli } from '../suite/run-cli.ts';
import { startFixtureReceiver, type FixtureReceiver } from './fixture-receiver.ts';
import { failedIds, runInProcess } from './in-process.ts';

// `dss-conformance receiver` end to end: once in its own process against the reference receiver
// (as a user runs it), the rest in this process (cheap), against its faults and a small receiver.

const SEED = '20261122';
const SECRET = 'fixture-secret-0123456789';

describe('dss-conformance receiver', () => {
  test('against the reference receiver, in its own process: CONFORMANT, exit 0, every report written', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'dssc-rcv-'));
    const run = await runCli(['receiver', '--seed', SEED, '--num-runs', '5', '--reports', reports]);
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/^verdict: CONFORMANT \(requirements: MUST 4 pass; SHOULD 6 pass\)$/m);
    expect(run.stdout).toContain(`rerun: npx dss-conformance receiver --num-runs 5 --seed ${SEED}`);
    for (const file of ['results.ndjson', 'results.json', 'junit.xml', 'report.html', 'summary.md']) expect(existsSync(join(reports, file)), file).toBe(true);
    const result = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'));
    expect(result.checks.map((c: { id: string; status: string }) => `${c.id} ${c.status}`)).toEqual(loadRequirements('receivers').map((r) => `${r.id} passed`));
    // Every report is rendered from the stream: folding it again gives results.json, apart from the
    // stream's own digest, which only the written file can carry.
    const { stream, ...rest } = result;
    expect(stream.file).toBe('results.ndjson');
    expect(JSON.parse(JSON.stringify(foldEvents(readEvents(join(reports, 'results.ndjson')), loadRequirements('receivers')).run))).toEqual(rest);
    expect(readFileSync(join(reports, 'junit.xml'), 'utf8')).toContain('name="RCV-002 a delivery without the right bearer secret is not answered 2xx"');
    expect(readFileSync(join(reports, 'summary.md'), 'utf8')).toContain('| SHOULD | 6 | 0 | 0 |');
    const html = readFileSync(join(reports, 'report.html'), 'utf8');
    expect(html).toContain('<th>Inspection endpoint</th><td>declared (RCV-007 and RCV-009 observable)</td>');
    expect(html).toContain('<th>SHOULD</th><td class="num">6</td>');
  });

  test('against a fault (--fault): NOT CONFORMANT naming the requirement, with its evidence and replay line', async () => {
    const run = await runInProcess(['receiver', '--fault', 'accepts-secret-prefix', '--seed', SEED, '--num-runs', '5']);
    expect(run.code, run.stdout).toBe(1);
    expect(failedIds(run.result!)).toEqual(['RCV-002']);
    expect(run.result!.verdict!.failures[0]).toMatch(/^RCV-002: deliveries without the right secret were accepted/);
    expect(run.stdout).toMatch(/^FAIL RCV-002 .* \[MUST\] Authentication 5$/m);
    expect(run.stdout).toMatch(/the secret less its last character: answered 200/);
    expect(run.stdout).toContain(`replay: npx dss-conformance receiver --num-runs 5 --fault accepts-secret-prefix --seed ${SEED} --only RCV-002`);
    expect(run.stdout).toMatch(/^verdict: NOT CONFORMANT /m);
  });

  test('a SHOULD failure is a warning (exit 0) unless --strict (exit 1)', async () => {
    const relaxed = await runInProcess(['receiver', '--fault', 'accepts-future-timestamps', '--seed', SEED, '--num-runs', '3']);
    expect(relaxed.code, relaxed.stdout).toBe(0);
    expect(relaxed.stdout).toMatch(/^ {2}WARN {2}RCV-004 /m);
    expect(relaxed.stdout).toMatch(/^warnings \(SHOULD, not failing the run without --strict\): RCV-004$/m);
    expect(relaxed.stdout).toMatch(/^verdict: CONFORMANT \(requirements: MUST 4 pass; SHOULD 5 pass, 1 warn\)$/m);
    const strict = await runInProcess(['receiver', '--fault', 'accepts-future-timestamps', '--strict', '--seed', SEED, '--num-runs', '3', '--only', 'RCV-004']);
    expect(strict.code, strict.stdout).toBe(1);
    expect(failedIds(strict.result!)).toEqual(['RCV-004']);
  });
});

describe('a receiver given with --url', () => {
  let receiver: FixtureReceiver;
  beforeAll(async () => {
    receiver = await startFixtureReceiver(SECRET);
  });
  afterAll(() => receiver.close());

  test('with its inspection endpoint: CONFORMANT, and the secret never goes to the inspection URL', async () => {
    const run = await runInProcess(['receiver', '--url', receiver.url, '--inspect-url', receiver.inspectUrl, '--seed', SEED, '--num-runs', '3', '--max-rps', '1000'], { DSSC_RECEIVER_SECRET: SECRET });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`rerun: npx dss-conformance receiver --url ${receiver.url} --secret "$DSSC_RECEIVER_SECRET" --inspect-url ${receiver.inspectUrl} --num-runs 3 --max-rps 1000 --seed ${SEED}`);
    expect(receiver.inspectAuthorizations).toEqual([]);
  });

  test('without one: RCV-007 and RCV-009 are skipped as not observable; CONFORMANT, INCOMPLETE (exit 4) under --strict', async () => {
    const run = await runInProcess(['receiver', '--url', receiver.url, '--secret', SECRET, '--seed', SEED, '--num-runs', '3', '--max-rps', '1000']);
    expect(run.code, run.stdout).toBe(0);
    const skipped = run.result!.checks.filter((c) => c.status === 'skipped');
    expect(skipped.map((c) => [c.id, c.skipClass])).toEqual([['RCV-007', 'not-observable'], ['RCV-009', 'not-observable']]);
    expect(skipped[0]!.reason).toMatch(/^not observable without an inspection endpoint \(profile inspectUrl, --inspect-url\)/);
    const strict = await runInProcess(['receiver', '--url', receiver.url, '--secret', SECRET, '--strict', '--seed', SEED, '--num-runs', '3', '--max-rps', '1000', '--only', 'RCV-007,RCV-009']);
    expect(strict.code).toBe(4);
    expect(strict.stdout).toMatch(/^verdict: INCOMPLETE /m);
  });

  test('a long-lived harness whose inspection endpoint lists thousands of earlier hashes is judged, not cut off', async () => {
    const history = Array.from({ length: 5_000 }, (_, i) => createHash('sha256').update(`earlier run ${i}`).digest('hex'));
    const longLived = await startFixtureReceiver(SECRET, 'conforming', history);
    try {
      const run = await runInProcess(['receiver', '--url', longLived.url, '--inspect-url', longLived.inspectUrl, '--seed', SEED, '--num-runs', '2', '--max-rps', '1000', '--only', 'RCV-007,RCV-009'], { DSSC_RECEIVER_SECRET: SECRET });
      expect(run.result!.checks.map((c) => `${c.id} ${c.status}`), run.stdout).toEqual(['RCV-007 passed', 'RCV-009 passed']);
    } finally {
      await longLived.close();
    }
  });

  test('a profile file names the receiver, the secret through a variable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-rcv-profile-'));
    const profile = join(dir, 'receiver.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(profile, JSON.stringify({ url: receiver.url, secret: { $env: 'MY_HOOK_SECRET' }, inspectUrl: receiver.inspectUrl, maxAgeSeconds: 300, responseTimeoutMs: 5000 }));
    const run = await runInProcess(['receiver', '--profile', profile, '--seed', SEED, '--num-runs', '2', '--max-rps', '1000', '--only', 'RCV-002,RCV-009'], { MY_HOOK_SECRET: SECRET });
    // A selection leaves the rest not judged: INCOMPLETE, exit 4.
    expect(run.code, run.stdout + run.stderr).toBe(4);
    expect(run.result!.checks.map((c) => `${c.id} ${c.status}`)).toEqual(['RCV-002 passed', 'RCV-009 passed']);
  });
});

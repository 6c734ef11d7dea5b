import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { cli } from '../../src/cli-main.ts';
import { replayCommand, type RunResult } from '../../src/report/results.ts';
import { resolveRunFlags } from '../../src/runner/config-resolve.ts';
import { ROOT } from './run-cli.ts';

// Issue 16 item 5, in process (no run needed): a check's replay line writes to a folder of its
// own, so that running it as printed leaves the full run's reports/ as they were; --version.

afterEach(() => vi.restoreAllMocks());

const run = { replay: 'npx dss-conformance run --seed 3 --num-runs 10 --fault put-merges-subscribers' } as RunResult;

/** The flags of a printed line, as the shell would split it (the lines here have no quoting). */
const argvOf = (line: string) => line.replace(/^npx dss-conformance run /, '').split(' ');

describe('the replay line', () => {
  test('names reports/replay-<ID> (and the version, for a pass of --api-version all)', () => {
    expect(replayCommand(run, { id: 'EHS-002' })).toBe('npx dss-conformance run --seed 3 --num-runs 10 --fault put-merges-subscribers --only EHS-002 --reports reports/replay-EHS-002');
    expect(replayCommand(run, { id: 'EHS-002', version: '2022-12-12' })).toMatch(/ --only EHS-002 --api-version 2022-12-12 --reports reports\/replay-EHS-002-2022-12-12$/);
  });

  test('run as printed it writes there, even with DSS_REPORTS set; a --reports added after it wins', () => {
    const line = replayCommand(run, { id: 'EHS-002' });
    expect(resolveRunFlags(argvOf(line), {}).values.reports).toBe('reports/replay-EHS-002');
    expect(resolveRunFlags(argvOf(line), { DSS_REPORTS: 'ci-reports' }).values.reports).toBe('reports/replay-EHS-002');
    expect(resolveRunFlags([...argvOf(line), '--reports', 'mine'], {}).values.reports).toBe('mine');
    // And the rest of the line is what reproduces the check.
    expect(resolveRunFlags(argvOf(line), {}).values).toMatchObject({ seed: '3', 'num-runs': '10', fault: ['put-merges-subscribers'], only: ['EHS-002'] });
  });
});

describe('--version', () => {
  test('prints the package version, exit 0', async () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    const code = await cli(['--version']);
    vi.restoreAllMocks();
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(code).toBe(0);
    expect(out).toBe(`dss-conformance ${version}\n`);
  });
});

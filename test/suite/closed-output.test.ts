import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readEvents } from '../../src/report/events.ts';
import { ROOT, withoutTargetEnv } from './run-cli.ts';

// `dss-conformance run … | head -1`: the reader goes away, and every later write to stdout fails
// (EPIPE). The run must still finish, write every report and exit with its verdict's code.

interface Closed { code: number | null; stderr: string; firstLine: string }

/** Runs the CLI with its stdout (and stderr, with `both`) closed as `when` says; stderr is read unless closed. */
function runClosed(args: string[], when: 'at-start' | 'after-first-line', both = false): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), ...args], { cwd: ROOT, env: withoutTargetEnv(process.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let firstLine = '';
    if (both) child.stderr.destroy();
    else child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // Closed before the child runs a line of JavaScript: its first write already fails.
    if (when === 'at-start') child.stdout.destroy();
    else {
      child.stdout.once('data', (c: Buffer) => {
        firstLine = c.toString().split('\n')[0] ?? '';
        child.stdout.destroy();
      });
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, firstLine });
    });
  });
}

describe('a closed stdout ends the console output, not the run', () => {
  test.each(['at-start', 'after-first-line'] as const)('closed %s: every report, run-end, the verdict\'s exit code, no stack trace', async (when) => {
    const reports = mkdtempSync(join(tmpdir(), 'dssc-closed-'));
    // One check: the selection is INCOMPLETE, which --allow-incomplete makes exit 0.
    const run = await runClosed(['run', '--only', 'AUTH-003', '--seed', '7', '--allow-incomplete', '--reports', reports], when);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/EPIPE|^\s+at /m);
    if (when === 'after-first-line') expect(run.firstLine).toMatch(/^dss-conformance: target /);
    for (const file of ['junit.xml', 'report.html', 'results.json', 'summary.md']) expect(existsSync(join(reports, file)), file).toBe(true);
    const events = readEvents(join(reports, 'results.ndjson'));
    expect(events.at(-1)?.type).toBe('run-end');
    expect(events.filter((e) => e.type === 'check-result').map((e) => e.type === 'check-result' && e.check.status)).toEqual(['passed']);
    expect(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')).verdict.verdict).toBe('INCOMPLETE');
  });

  test('stdout and stderr both closed: a usage error still exits 2', async () => {
    const run = await runClosed(['run', '--seed', 'not-a-number'], 'at-start', true);
    expect(run.code).toBe(2);
  });
});

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunResult } from '../../src/report/results.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  reports: string;
  result?: RunResult;
}

/** Runs the CLI as a user would, in its own process (the suite itself runs vitest). */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 480_000): Promise<CliRun> {
  const { argv, reports } = withReports(args);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), ...argv], {
      cwd: ROOT,
      env: { ...withoutTargetEnv(process.env), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ...runReports(reports) });
    });
  });
}

/** A run's command line with a fresh report folder of its own, unless it names one. */
export function withReports(args: string[]): { argv: string[]; reports: string } {
  const reports = mkdtempSync(join(tmpdir(), 'dssc-reports-'));
  return { argv: args[0] === 'run' && !args.includes('--reports') ? [...args, '--reports', reports] : args, reports };
}

/** The folder and the results.json in it, when the run wrote one. */
export function runReports(reports: string): { reports: string; result?: RunResult } {
  try {
    return { reports, result: JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as RunResult };
  } catch {
    return { reports };
  }
}

/**
 * Every run flag has a DSS_* variable: none from the developer's shell may reach a test's run. Nor
 * may the CI's own GitHub variables (a test's run would annotate and summarise the real job) or
 * colour settings (the tests read plain lines).
 */
const OUTER_ONLY = new Set(['GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'FORCE_COLOR', 'NO_COLOR']);
export function withoutTargetEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('DSS_') && !OUTER_ONLY.has(name)));
}

export const failedIds = (r: RunResult) => [...new Set(r.checks.filter((c) => c.status === 'failed').map((c) => c.id))].sort();

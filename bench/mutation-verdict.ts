/**
 * The test command Stryker runs for each mutant (see bench/mutation.ts): the conformance suite
 * against the embedded reference, on the module's areas. Exit 0 = the mutant survived.
 *
 * A run of some areas only is INCOMPLETE at best, so its exit code cannot be the judge: a mutant
 * that makes connection creation answer 500 turns most checks into "precondition not met" skips
 * and still ends INCOMPLETE. The judge is what a full run's verdict would be: CONFORMANT needs
 * every check that passes on the unmutated reference to pass again. So the dry run (Stryker's
 * first run, with no mutant active) records the checks that pass, and a mutant is killed when any
 * check fails or errors, or any of those checks does not pass (skipped, or not run at all).
 *
 * usage: node bench/mutation-verdict.ts <dss-conformance run flags>
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

// With `--concurrency N` Stryker runs N of these at once in the same sandbox directory, so each
// run writes its own results; the baseline is written once, by the dry run, before any mutant runs.
const REPORTS = `reports/mutation-run-${process.pid}`;
const BASELINE = 'reports/mutation-baseline.json';
// Stryker's INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT_ENV_VARIABLE: absent in the dry run.
const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;

interface Check { title: string; status: string; reason?: string; message?: string }

const run = spawnSync(process.execPath, ['src/cli.ts', 'run', ...process.argv.slice(2), '--reports', REPORTS], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
// 0 CONFORMANT, 4 INCOMPLETE (areas not selected); anything else (1 NOT CONFORMANT, 3 the
// reference did not start, 70 internal error, a signal) is a verdict against the mutant.
if (run.status !== 0 && run.status !== 4) kill(`dss-conformance run exited ${run.status ?? run.signal}: ${(run.stderr ?? '').trim().slice(-400)}`);

const checks = (JSON.parse(readFileSync(`${REPORTS}/results.json`, 'utf8')) as { checks: Check[] }).checks;
rmSync(REPORTS, { recursive: true, force: true });
const bad = checks.filter((c) => c.status !== 'passed' && c.status !== 'skipped');
if (bad.length > 0) kill(bad.slice(0, 3).map((c) => `${c.status}: ${c.title}: ${(c.message ?? c.reason ?? '').split('\n')[0]}`).join('\n'));
const passed = checks.filter((c) => c.status === 'passed').map((c) => c.title);

if (mutant === undefined) {
  mkdirSync('reports', { recursive: true });
  writeFileSync(BASELINE, JSON.stringify(passed));
  process.exit(0);
}
const now = new Set(passed);
const lost = (JSON.parse(readFileSync(BASELINE, 'utf8')) as string[]).filter((title) => !now.has(title));
if (lost.length > 0) {
  const why = (title: string) => checks.find((c) => c.title === title)?.reason ?? 'not run';
  kill(`${lost.length} check(s) that pass on the reference did not pass: ${lost.slice(0, 3).map((t) => `${t} (${why(t)})`).join('; ')}`);
}
process.exit(0);

function kill(why: string): never {
  rmSync(REPORTS, { recursive: true, force: true });
  process.stdout.write(`mutant ${mutant ?? '(none: dry run)'} detected: ${why}\n`);
  process.exit(1);
}

import { type CliRun, runCli } from '../suite/run-cli.ts';

// A measured baseline for wall-time bounds on whole CLI runs: the wall time of the cheapest run
// there is (a target that refuses the connection: start, preflight, complete reports, exit 3),
// measured now, on this machine, under whatever else it is doing. A bound written as "the run's
// own budget plus k of these" holds on a saturated machine (where every run is slower in the same
// proportion) and still tells a run that waits on its target from one that does not.

/**
 * Wall time of the cheapest complete CLI run, in ms, measured now, started the way the runs it is a
 * bound for are (a process of its own, or a run server's: test/suite/run-server-pool.ts).
 */
export async function cliFixedCostMs(run: (args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) => Promise<CliRun> = runCli): Promise<number> {
  const started = Date.now();
  // Port 1 on the loopback: nothing listens there, so the first request is refused.
  const result = await run(['run', '--base-url', 'http://127.0.0.1:1', '--api-key=baseline-key', '--only', 'AUTH-003'], {}, 300_000);
  if (result.code !== 3) throw new Error(`the baseline run should exit 3 (refused), not ${result.code}: ${result.stderr}`);
  return Date.now() - started;
}

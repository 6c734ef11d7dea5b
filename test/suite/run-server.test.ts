import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { failedIds, runCli } from './run-cli.ts';
import { useRunServers } from './run-server-pool.ts';

// The matrices trust a run in a shared child (test/helpers/run-server.ts) to be what the same
// command line gives in a process of its own. A run after another in the same child must see
// nothing of the first: same verdict, same exit code, and the same requests (any state carried
// over, a counter, a name, a fixture, would show in them). Compared as a set: requests the suite
// sends side by side (the credential variants) go out in whichever order a busy machine schedules
// them, the <idN> names requests.json gives ids follow that order, and a request repeated back to
// back is listed once, so how many times it shows depends on timing too (found failing with two
// busy loops). The names' counters follow that order too ("dssc-<run>-relationalDatabase-18" went
// out under another credential variant on a busy CI runner), so entries are compared with their
// counters taken out, and the counters apart, as the set of names the run made: a counter carried
// over from the first run shifts that set.

const servers = useRunServers(1);
const ARGS = ['--only', 'connections,auth', '--seed', '20261124', '--num-runs', '5'];

const NAME = /dssc-<run>-[A-Za-z]+-\d+/g;

/** requests.json's distinct entries (ids and name counters unnumbered), and the names it used. */
function sentRequests(reports: string): { entries: string[]; names: string[] } {
  const json = (JSON.parse(readFileSync(join(reports, 'requests.json'), 'utf8')) as unknown[]).map((e) => JSON.stringify(e));
  const entries = json.map((e) => e.replace(/<id\d+>/g, '<id>').replace(NAME, (name) => name.replace(/\d+$/, 'N')));
  return { entries: [...new Set(entries)].sort(), names: [...new Set(json.flatMap((e) => e.match(NAME) ?? []))].sort() };
}

test('a run in a child that has already run one equals the run in its own process', async () => {
  // A different run first, with a fault: whatever it leaves is what the second could see.
  const first = await servers.run(['run', '--fault', 'echo-secrets', ...ARGS]);
  expect(first.result && failedIds(first.result), first.stdout + first.stderr).toEqual(['CONN-005']);
  const [shared, own] = [await servers.run(['run', '--fault', 'no-auth-url', ...ARGS]), await runCli(['run', '--fault', 'no-auth-url', ...ARGS])];
  expect(servers.reused, 'the second run went to the same child').toBe(1);
  expect(servers.leaks, 'a run left state behind: each child would serve one run only').toEqual([]);
  expect(shared.code).toBe(own.code);
  expect(shared.result && failedIds(shared.result)).toEqual(own.result && failedIds(own.result));
  expect(shared.result!.verdict).toEqual(own.result!.verdict);
  expect(sentRequests(shared.reports)).toEqual(sentRequests(own.reports));
  // Its own output only: the first run's lines are not in it.
  expect(shared.stdout).not.toContain('echo-secrets');
  expect(shared.stdout).toContain('with fault no-auth-url');
});

test('a clean run after a fault run in the same kept worker thread equals the clean run in its own process', async () => {
  // The child's vitest worker thread is kept from run to run (src/runner/kept-pool.ts): the
  // suite's fixtures, names and connections of the fault runs above must not reach this one.
  const [shared, own] = [await servers.run(['run', ...ARGS]), await runCli(['run', ...ARGS])];
  expect(servers.threads, 'every run of the child went to one worker thread, none left state in it').toEqual({ started: 1, dropped: [] });
  expect(servers.leaks).toEqual([]);
  expect(shared.code).toBe(own.code);
  expect(shared.result && failedIds(shared.result)).toEqual(own.result && failedIds(own.result));
  expect(shared.result!.verdict).toEqual(own.result!.verdict);
  expect(sentRequests(shared.reports)).toEqual(sentRequests(own.reports));
});

test('an error ends a shared run with the one line and exit code of the CLI', async () => {
  const args = ['run', '--num-runs', 'many'];
  const [shared, own] = [await servers.run(args), await runCli(args)];
  expect(shared.code).toBe(2);
  expect(shared.code).toBe(own.code);
  expect(shared.stderr).toBe(own.stderr);
  expect(shared.stdout).toBe(own.stdout);
});

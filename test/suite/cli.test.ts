import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { failedIds, ROOT, runCli, withoutTargetEnv, type CliRun } from './run-cli.ts';
import { RUN_FLAGS } from '../../src/runner/run-flags.ts';
import { OWNED_REPORTS } from '../../src/runner/write-reports.ts';
import type { RunResult } from '../../src/report/results.ts';
import { expectValidJunit } from './junit-validate.ts';
import { useRunServers } from './run-server-pool.ts';
import { useSharedSourceDb } from '../helpers/shared-source-db.ts';

// The CLI as a CI pipeline meets it: exit codes, one-line errors, reports, replay, determinism.

const oneLine = (s: string) => s.trim().split('\n').length === 1 && !/\n\s+at /.test(s);

// Command lines judged only by their exit code and output go to shared children that load the
// kit once (test/suite/run-server-pool.ts): a process each cost 0.5-0.9 s of CPU for a line that is
// refused in milliseconds. So do the other targets that are down or not the service, and the whole
// runs further down, which read a run's verdict and reports. What the process itself does (its own
// stderr, its exit) is held to the same by the runs below that keep a process of their own: 'a
// closed port' (exit 3), 'the same refusal in a process of its own' (exit 2), and a printed line
// pasted into a shell (a shell and a process).
const servers = useRunServers(2);
// Whole runs that print no line a user pastes (a rerun or replay line names DSS_SOURCE_DB when it
// is set) take the shared source database of `npm test` (test/helpers/shared-source-db.ts).
const sourceDb = useSharedSourceDb();

describe.concurrent('dss-conformance run: bad input is one line and exit 2', () => {
  test.for<[string[], RegExp]>([
    [['run', '--num-runs', 'many'], /--num-runs must be an integer/],
    [['run', '--bogus'], /^dss-conformance: unknown flag --bogus \(see 'dss-conformance run --help'\)$/m],
    [['run', '--api-key', '-starts-with-a-dash'], /--api-key: a value that starts with '-' is written --api-key=-VALUE/],
    [['run', '--only', 'NOPE-001'], /unknown requirement ID NOPE-001/],
    [['run', '--base-url', 'ftp://x'], /must be an http:\/\/ or https:\/\/ URL, got ftp:/],
    [['run', '--base-url', 'http://127.0.0.1:9'], /--api-key/],
    [['run', '--profile', '/nonexistent/profile.json'], /profile .*no such file/],
    [['run', '--adapter', '/nonexistent/adapter.mjs'], /--adapter .*no such file/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['run', '--reports', '/proc/dssc-cannot-write-here'], /--reports .*cannot write there/],
    // Issue 9: each of these gave a cryptic line, or none.
    [['run', '--seed', '-5'], /^dss-conformance: --seed must be between 0 and 2147483647 \(not negative\), got -5$/m],
    [['run', '--seed=-5'], /^dss-conformance: --seed must be between 0 and 2147483647 \(not negative\), got -5$/m],
    [['run', '--base-url', 'localhost:8080', '--api-key=k'], /^dss-conformance: --base-url needs a scheme: http:\/\/localhost:8080 or https:\/\/localhost:8080, got "localhost:8080"$/m],
    [['run', '--base-url', '127.0.0.1:8080', '--api-key=k'], /--base-url needs a scheme: http:\/\/127\.0\.0\.1:8080 or https:/],
    [['run', '--receiver-public-url', 'tunnel.example.com'], /--receiver-public-url needs a scheme: http:\/\/tunnel\.example\.com/],
    [['run', '--num-run', '5'], /unknown flag --num-run \(did you mean --num-runs\? see 'dss-conformance run --help'\)/],
    [['run', '--exlcude', 'auth'], /did you mean --exclude\?/],
    [['runn'], /unknown command 'runn' \(did you mean run\?/],
    [['serve', '--prot', '1'], /unknown flag --prot \(did you mean --port\? see 'dss-conformance serve --help'\)/],
    [['faults', '--jsn'], /did you mean --json\?/],
    [['coverage', '--jsn'], /did you mean --json\?/],
    [['baseline', '--ot', 'x'], /did you mean --out\?/],
    [['run', '--seed', '--num-runs', '3'], /--seed needs a value, and --num-runs is taken as the next flag/],
    [['run', '--allow-incomplete=yes'], /--allow-incomplete takes no value/],
    [['run', 'now'], /unexpected argument 'now'/],
    [['run', '--only', 'webhook'], /--only: not a requirement ID, glob, area or level: webhook \(did you mean webhooks\?/],
    [['run', '--only', 'WH-9*'], /--only: WH-9\* matches no requirement ID/],
    [['run', '--exclude', 'MUST,INFERRED,PROFILE'], /leaves no requirement to run/],
    [['run', '--variant', 'no-version-eco'], /unknown benign variant 'no-version-eco' \(did you mean no-version-echo\?/],
    [['run', '--fault', 'put-merge-subscribers'], /unknown fault 'put-merge-subscribers' \(did you mean put-merges-subscribers\?/],
  ])('%j', async ([args, message], { expect }) => {
    const run = await servers.run(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(oneLine(run.stderr)).toBe(true);
  });

  test.for<[NodeJS.ProcessEnv, RegExp]>([
    [{ DSS_SEED: '-3' }, /^dss-conformance: DSS_SEED must be between 0 and 2147483647 \(not negative\), got -3$/m],
    [{ DSS_BASE_URL: 'localhost:8080', DSS_API_KEY: 'k' }, /^dss-conformance: DSS_BASE_URL needs a scheme: http:\/\/localhost:8080/m],
    [{ DSS_ONLY: 'AUTH-01' }, /^dss-conformance: DSS_ONLY: unknown requirement ID AUTH-01 \(did you mean AUTH-001\?/m],
    [{ DSS_ALLOW_INCOMPLETE: 'maybe' }, /DSS_ALLOW_INCOMPLETE must be true or false/],
    [{ DSS_CONFIG: '/nonexistent/dssc.json' }, /^dss-conformance: config \/nonexistent\/dssc\.json: no such file$/m],
  ])('a bad variable %j names the variable', async ([env, message], { expect }) => {
    const run = await servers.run(['run'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(oneLine(run.stderr)).toBe(true);
  });

  test('a config file value names the file and the key', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-config-'));
    writeFileSync(join(dir, 'c.json'), JSON.stringify({ seed: 3, 'max-duration': '5 minutes', 'api-key': { $env: 'DSSC_UNSET_VAR' } }));
    const run = await servers.run(['run', '--config', join(dir, 'c.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^dss-conformance: config .*c\.json: \/(max-duration|api-key)/m);
    expect(oneLine(run.stderr)).toBe(true);
  });

  test('a profile that is not JSON, or breaks the profile schema, or names an unset variable', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-profile-'));
    const cases: Array<[string, RegExp]> = [
      ['{ not json', /not JSON/],
      ['{"name": "x", "versions": {"default": "1999-01-01"}}', /versions\/default/],
      ['{"name": "x", "kinds": {"objectStore": {"type": "s3", "configuration": {"cloud_secret_access_key": {"$env": "DSSC_UNSET_VAR"}}}}}', /DSSC_UNSET_VAR is not set/],
    ];
    const runs = await Promise.all(cases.map(([text], i) => {
      const file = join(dir, `p${i}.json`);
      writeFileSync(file, text);
      return servers.run(['run', '--profile', file]);
    }));
    for (const [i, run] of runs.entries()) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(cases[i]![1]);
      expect(oneLine(run.stderr)).toBe(true);
    }
  });
});

describe.concurrent('dss-conformance run: the same refusal in a process of its own', () => {
  test.for<[string[], NodeJS.ProcessEnv, RegExp]>([
    [['run', '--num-runs', 'many'], {}, /--num-runs must be an integer/],
    [['frobnicate'], {}, /unknown command 'frobnicate'/],
    [['run'], { DSS_SEED: '-3' }, /^dss-conformance: DSS_SEED must be between 0 and 2147483647/m],
  ])('%j %j', async ([args, env, message], { expect }) => {
    const run = await runCli(args, env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(oneLine(run.stderr)).toBe(true);
    expect(run.stdout).toBe('');
  });
});

describe.concurrent('dss-conformance run: a target that is down or not the service is exit 3', () => {
  test('a closed port', async ({ expect }) => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    await new Promise((r) => server.close(r));
    const run = await runCli(['run', '--base-url', `http://127.0.0.1:${port}`, '--api-key', 'k-secret-1']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/unreachable: connection refused/);
    expect(oneLine(run.stderr)).toBe(true);
  });

  test('a server that answers garbage, and one that answers HTML', async ({ expect }) => {
    const garbage = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    await new Promise<void>((r) => garbage.listen(0, '127.0.0.1', r));
    const html = createServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 6\r\nconnection: close\r\n\r\n<html>'));
    await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
    try {
      const targets = [[garbage, /not HTTP|reset/], [html, /not JSON/]] as const;
      // Both wait on their target: they run at once.
      const runs = await Promise.all(targets.map(([server]) => servers.run(['run', '--base-url', `http://127.0.0.1:${(server.address() as { port: number }).port}`, '--api-key', 'k-secret-1'])));
      for (const [i, [, message]] of targets.entries()) {
        const run = runs[i]!;
        expect(run.code, run.stderr).toBe(3);
        expect(run.stderr).toMatch(message);
        expect(run.stderr).not.toContain('k-secret-1');
        expect(oneLine(run.stderr)).toBe(true);
      }
    } finally {
      garbage.close();
      html.close();
    }
  });
});

describe.concurrent('help: -h, --help and help COMMAND on every command', () => {
  test.for(['run', 'serve', 'faults', 'coverage', 'baseline', 'cleanup'])('%s', async (command, { expect }) => {
    const outputs = await Promise.all([[command, '-h'], [command, '--help'], ['help', command]].map((args) => servers.run(args)));
    for (const run of outputs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^usage: dss-conformance ${command}\\b`));
    }
    expect(new Set(outputs.map((r) => r.stdout)).size).toBe(1);
  });

  test('run --help names every report file, every flag, and the DSS_* and --config rule', async ({ expect }) => {
    const { stdout } = await servers.run(['run', '--help']);
    for (const file of OWNED_REPORTS) expect(stdout).toContain(file);
    for (const flag of RUN_FLAGS) expect(stdout).toMatch(new RegExp(`^  --${flag.name}\\b`, 'm'));
    expect(stdout).toContain('DSS_NUM_RUNS');
    expect(stdout).toMatch(/a flag wins over its variable, a variable over the file/);
  });
});

describe.concurrent('dss-conformance run: a wrong scheme for the port says so in one line, exit 3', () => {
  test('https against a port that speaks plain HTTP', async ({ expect }) => {
    const plain = createHttpServer((_req, res) => res.end('{}'));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    try {
      const { port } = plain.address() as { port: number };
      const run = await servers.run(['run', '--base-url', `https://127.0.0.1:${port}`, '--api-key=k-secret-1']);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(new RegExp(`unreachable: TLS handshake with 127\\.0\\.0\\.1:${port} failed: the port answers plain HTTP, not TLS; use http://127\\.0\\.0\\.1:${port}`));
      expect(oneLine(run.stderr)).toBe(true);
    } finally {
      plain.close();
    }
  });
});

describe.concurrent('dss-conformance run: settings from variables and a config file, selection', () => {
  test('flag > DSS_* variable > config file, end to end', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-config-'));
    const config = join(dir, 'run.json');
    writeFileSync(config, JSON.stringify({ seed: 11, 'num-runs': 2, only: ['AUTH-00?'], exclude: 'AUTH-002,AUTH-003,AUTH-005' }));
    const [fromFile, fromEnv, fromFlag] = await Promise.all([
      servers.run(['run', '--config', config]),
      servers.run(['run'], { DSS_CONFIG: config, DSS_SEED: '22', DSS_ONLY: 'AUTH-001' }),
      servers.run(['run', '--seed', '33'], { DSS_CONFIG: config, DSS_SEED: '22', DSS_ONLY: 'AUTH-001' }),
    ]);
    expect(fromFile.result!.seed).toBe(11);
    expect(ids(fromFile)).toEqual(['AUTH-001', 'AUTH-004']);
    expect(fromEnv.result!.seed).toBe(22);
    expect(ids(fromEnv)).toEqual(['AUTH-001']);
    expect(fromFlag.result!.seed).toBe(33);
    // Every run prints the line that repeats it, the file's and the variables' settings included.
    expect(fromFlag.stdout).toMatch(/^rerun: npx dss-conformance run --seed 33 --num-runs 2 --only AUTH-001 --exclude AUTH-002,AUTH-003,AUTH-005$/m);
  });

  test('--only an area with --exclude an ID: exactly those run; the rest is not selected, so INCOMPLETE (exit 4)', async ({ expect }) => {
    const run = await servers.run(['run', '--seed', '5', '--num-runs', '2', '--only', 'auth', '--exclude', 'AUTH-002'], sourceDb());
    expect(run.code).toBe(4);
    expect(ids(run)).toEqual(['AUTH-001', 'AUTH-003', 'AUTH-004', 'AUTH-005']);
    const excluded = run.result!.verdict!.requirements.find((r) => r.id === 'AUTH-002')!;
    expect(excluded).toMatchObject({ status: 'skip', skipClass: 'not-selected' });
  });
});

const ids = (run: CliRun) => [...new Set(run.result!.checks.map((c) => c.id))].sort();

/** Runs a printed command line as a person pastes it into a shell, in the checkout, with these variables. */
function runLine(line: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; result: RunResult }> {
  const reports = mkdtempSync(join(tmpdir(), 'dssc-replay-'));
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${line} --reports ${reports}`], { cwd: ROOT, env: { ...withoutTargetEnv(process.env), PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve({ code, stdout, result: JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as RunResult });
      } catch {
        reject(new Error(`no results.json from: ${line}\n${stdout.slice(-2000)}`));
      }
    });
  });
}

// Alongside the other groups, its tests one after another: run at once, their whole runs queued for
// the two run servers behind each other's, and on a saturated machine (load 40) one test's three
// runs waited past the 10 min test timeout. A test's own runs still go at once: each touches only
// what it creates (its run id in every name), as it must on a shared endpoint.
describe.concurrent('dss-conformance run against a separately started serve', () => {
  let serve: ChildProcess;
  let baseUrl = '';

  beforeAll(async () => {
    serve = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), 'serve', '--port', '0', '--api-key', 'k1-secret-key', '--org-key', 'o1-secret-key', '--schema-cache-delay-ms', '300'], { stdio: ['ignore', 'pipe', 'pipe'] });
    baseUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      serve.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      serve.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
  });
  afterAll(() => {
    serve.kill('SIGTERM');
  });

  test('passes, writes JUnit that CI consumers parse, and never writes a key into any report', { concurrent: false }, async ({ expect }) => {
    const run = await servers.run(['run', '--base-url', baseUrl, '--api-key', 'k1-secret-key', '--org-key', 'o1-secret-key', '--profile', 'reference', '--seed', '7', '--num-runs', '5', '--max-rps', '1000'], sourceDb());
    expect(failedIds(run.result!), run.stdout.slice(-2000)).toEqual([]);
    expect(run.result!.checks.filter((c) => c.status === 'skipped')).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.result!.verdict!.verdict).toBe('CONFORMANT');
    expect(run.stdout).toMatch(/^verdict: CONFORMANT \(requirements: MUST \d+ pass; INFERRED \d+ pass; PROFILE \d+ pass\)$/m);
    const junit = readFileSync(join(run.reports, 'junit.xml'), 'utf8');
    await expectValidJunit(junit);
    for (const file of ['junit.xml', 'results.json', 'requests.json']) {
      const text = readFileSync(join(run.reports, file), 'utf8');
      expect(text).not.toContain('k1-secret-key');
      expect(text).not.toContain('o1-secret-key');
      expect(text).not.toContain(Buffer.from('o1-secret-key:').toString('base64'));
    }
    expect(run.stdout).not.toContain('k1-secret-key');
  });

  test('without --profile, every check that needs an answer the spec does not show is skipped with the reason, none fails: INCOMPLETE, exit 4', { concurrent: false }, async ({ expect }) => {
    const run = await servers.run(['run', '--base-url', baseUrl, '--api-key', 'k1-secret-key', '--seed', '7', '--num-runs', '3', '--max-rps', '1000'], sourceDb());
    expect(run.code, run.stdout.slice(-2000)).toBe(4);
    expect(run.result!.verdict!.verdict).toBe('INCOMPLETE');
    expect(run.stdout).toMatch(/^verdict: INCOMPLETE \(requirements: MUST \d+ pass, \d+ skip/m);
    expect(run.stdout).toMatch(/^not judged: /m);
    const skipped = run.result!.checks.filter((c) => c.status === 'skipped');
    expect(skipped.length).toBeGreaterThan(20);
    for (const c of skipped) expect(c.reason, c.title).toMatch(/profile|not shown|organization key/);
    expect(run.stdout).toMatch(/profile none \(no --profile/);
  });

  test('the webhook checks run with the built-in adapter, and the same with the documented example adapter', { concurrent: false }, async ({ expect }) => {
    const args = ['run', '--base-url', baseUrl, '--api-key', 'k1-secret-key', '--seed', '11', '--num-runs', '3', '--max-rps', '1000', '--only', WEBHOOK_IDS];
    const [builtIn, example] = await Promise.all([servers.run(args, sourceDb()), servers.run([...args, '--adapter', join(ROOT, 'fixtures/adapters/example-adapter.mjs')], sourceDb())]);
    const verdicts = (r: typeof builtIn) => r.result!.checks.map((c) => `${c.title}: ${c.status}`);
    expect(verdicts(builtIn).length).toBeGreaterThanOrEqual(22);
    expect(verdicts(builtIn).every((v) => v.endsWith(': passed')), builtIn.stdout.slice(-2000)).toBe(true);
    expect(verdicts(example)).toEqual(verdicts(builtIn));
    expect(readFileSync(join(example.reports, 'junit.xml'), 'utf8')).not.toMatch(/Bearer (?!\[REDACTED\])[A-Za-z0-9_-]{20,}/);
  });

  test('the rerun line and a check\'s replay line run as printed in a shell, keys from the variables they name', { concurrent: false }, async ({ expect }) => {
    // Settings from all three sources: flags, variables (the org key, the rate) and a config file (the receiver).
    const dir = mkdtempSync(join(tmpdir(), 'dssc-config-'));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ 'receiver-host': '127.0.0.1', 'timestamp-tolerance-s': 200, 'api-key': { $env: 'MY_TARGET_KEY' } }));
    const env = { MY_TARGET_KEY: 'k1-secret-key', DSS_ORG_KEY: 'o1-secret-key', DSS_MAX_RPS: '1000' };
    const first = await servers.run(['run', '--config', join(dir, 'run.json'), '--base-url', baseUrl, '--profile', 'reference', '--seed', '8', '--num-runs', '2', '--only', 'AUTH-00*,WH-001', '--allow-incomplete'], env);
    expect(first.code, first.stdout.slice(-2000)).toBe(0);
    const rerun = /^rerun: (.*)$/m.exec(first.stdout)![1]!;
    expect(rerun).toBe(`npx dss-conformance run --base-url ${baseUrl} --api-key "$MY_TARGET_KEY" --org-key "$DSS_ORG_KEY" --profile reference --seed 8 --num-runs 2 --max-rps 1000 --receiver-host 127.0.0.1 --timestamp-tolerance-s 200 --allow-incomplete --only 'AUTH-00*,WH-001'`);
    expect(first.stdout).not.toContain('k1-secret-key');
    // A check's replay line is the same line with --only ID in place of the selection.
    const [again, one] = await Promise.all([
      runLine(rerun, { MY_TARGET_KEY: 'k1-secret-key', DSS_ORG_KEY: 'o1-secret-key' }),
      runLine(`${first.result!.replay} --only AUTH-002`, { MY_TARGET_KEY: 'k1-secret-key', DSS_ORG_KEY: 'o1-secret-key' }),
    ]);
    expect(again.code, again.stdout.slice(-2000)).toBe(0);
    const verdicts = (r: RunResult) => r.checks.map((c) => `${c.title}: ${c.status}`);
    expect(verdicts(again.result)).toEqual(verdicts(first.result!));
    expect(one.result.checks.map((c) => `${c.id}: ${c.status}`)).toEqual(['AUTH-002: passed']);
  });

  test('the same seed gives the same verdicts and the same generated requests', { concurrent: false }, async ({ expect }) => {
    const args = ['run', '--base-url', baseUrl, '--api-key', 'k1-secret-key', '--org-key', 'o1-secret-key', '--profile', 'reference', '--seed', '99', '--num-runs', '5', '--max-rps', '1000'];
    // At once: a seed's requests may not depend on what else reaches the target meanwhile.
    const [a, b, other] = await Promise.all([servers.run(args, sourceDb()), servers.run(args, sourceDb()), servers.run(args.map((x) => (x === '99' ? '100' : x)), sourceDb())]);
    const verdicts = (r: typeof a) => r.result!.checks.map((c) => `${c.title}: ${c.status}`);
    expect(verdicts(a)).toEqual(verdicts(b));
    expect(readFileSync(join(a.reports, 'requests.json'), 'utf8')).toEqual(readFileSync(join(b.reports, 'requests.json'), 'utf8'));
    expect(readFileSync(join(other.reports, 'requests.json'), 'utf8')).not.toEqual(readFileSync(join(a.reports, 'requests.json'), 'utf8'));
  });
});

const WEBHOOK_IDS = Array.from({ length: 22 }, (_, i) => `WH-${String(i + 1).padStart(3, '0')}`).join(',');

describe.concurrent('hostile deliveries are recorded as violations and the run still finishes', () => {
  test.for([
    ['extra-delivery-not-json', 'not JSON'],
    ['extra-delivery-no-authorization', 'no Authorization header'],
    ['extra-delivery-gzip-bomb', 'inflated body over cap'],
    ['delivery-not-gzip', 'not gzip'],
  ] as Array<[string, string]>)('%s: "%s" in deliveries.json, junit.xml and the console', async ([fault, violation], { expect }) => {
    const run = await servers.run(['run', '--fault', fault, '--seed', '5', '--num-runs', '3', '--only', WEBHOOK_IDS], sourceDb());
    expect(run.code, run.stderr).toBe(1);
    const log = JSON.parse(readFileSync(join(run.reports, 'deliveries.json'), 'utf8')) as { deliveries: Array<{ violations: string[] }> };
    expect(log.deliveries.some((d) => d.violations.includes(violation))).toBe(true);
    expect(run.result!.deliveries!.length).toBe(log.deliveries.length);
    expect(readFileSync(join(run.reports, 'junit.xml'), 'utf8')).toContain(violation);
    expect(run.stdout).toContain(violation);
  });
});

describe.concurrent('dss-conformance run against a faulty target', () => {
  test('exits 1 naming the broken requirement, with a replay command that reproduces it alone', async ({ expect }) => {
    const run = await servers.run(['run', '--fault', 'put-merges-subscribers', '--seed', '3', '--num-runs', '10']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL EHS-002/);
    const replay = /replay: (npx dss-conformance run .*--only EHS-002 .*)$/m.exec(run.stdout)?.[1];
    // Its own folder: run as printed, it leaves the full run's reports as they are.
    expect(replay).toBe('npx dss-conformance run --seed 3 --num-runs 10 --fault put-merges-subscribers --only EHS-002 --reports reports/replay-EHS-002');
    const again = await runLine(replay!, {});
    expect(again.code).toBe(1);
    expect(again.result.verdict!.verdict).toBe('NOT CONFORMANT');
    expect(again.result.checks.filter((c) => c.status !== 'skipped').map((c) => c.id)).toEqual(['EHS-002']);
  });
});

describe.concurrent('dss-conformance coverage and faults', () => {
  test('coverage lists every requirement with its level and names what lacks a check or a fault', async ({ expect }) => {
    const run = await servers.run(['coverage']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/CONN-001\s+MUST/);
    expect(run.stdout).toMatch(/requirements \(\d+ MUST, \d+ INFERRED, \d+ PROFILE\)/);
    expect(run.stdout).toMatch(/without a check: none/);
    expect(run.stdout).toMatch(/checked but no fault proves it: none/);
  });

  test('faults lists each fault with the requirements it breaks', async ({ expect }) => {
    const run = await servers.run(['faults']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/put-merges-subscribers.*EHS-002/);
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test, type ExpectStatic } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { referenceProfilePath } from '../../src/profile/profile.ts';
import type { RunResult } from '../../src/report/results.ts';
import { expectValidJunit } from './junit-validate.ts';
import { echoRequests, httpTarget, proxyTarget, rewriteJson, tcpTarget, type Exchange, type Hostile } from './hostile-servers.ts';
import { cliFixedCostMs } from '../helpers/cli-baseline.ts';
import { useRunServers } from './run-server-pool.ts';

// Verdict integrity against broken and hostile targets: for each, the exit code, the verdict,
// complete well-formed reports, a wall-time bound, and no secret in any output. None of them may
// end CONFORMANT.

/**
 * The cases run concurrently, as many as vitest's maxConcurrency (vitest.config.ts, 3) lets a file
 * run: most of their time is waiting on a hostile target's time limits, and each case has all it
 * uses to itself (its own reference, target, report folder), so none can see another's requests.
 */
const LANES = 3;

// What is judged here is a run's verdict, reports and output, none of it the process's own (the
// signals, a closed stdout and the exit are tested with a process per run elsewhere): the runs go
// to LANES long-lived children that load the kit once (test/suite/run-server-pool.ts). A child a
// hostile run left a handle in is replaced by a fresh one.
const servers = useRunServers(LANES, { sharedSourceDb: true });

/**
 * The cheapest complete run's wall time (test/helpers/cli-baseline.ts), measured as LANES of them
 * at once through the same children: the cases run that many at a time and slow each other down in
 * the same proportion. The children are new then, so each of these includes a child's start, as a
 * case's run does when its child was replaced. Read-only once measured.
 */
let fixedMs = 0;
const PROFILE_SECRETS = ['dssc-example-password', 'dssc-example-secret-key'];

/** Every encoding a leaked secret could take in an output. */
function encodings(secret: string): string[] {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  return [
    secret,
    b64(secret),
    b64(`${secret}:`),
    b64(`:${secret}`),
    Buffer.from(secret).toString('base64url'),
    Buffer.from(secret).toString('hex'),
    encodeURIComponent(secret),
    json(secret),
    // A request body echoed inside a JSON string, and that quoted in a JSON report.
    json(json(secret)),
    json(json(json(secret))),
    secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  ];
}

/**
 * Whether an output holds a spelling of a secret. One under 4 characters counts where it stands as
 * a token (no letter or digit on either side): that is where the redactor removes it, and "k1"
 * inside a random id is no leak of the key "k1".
 */
function holds(text: string, form: string): boolean {
  if (form.length >= 4) return text.includes(form);
  const escaped = form.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`).test(text);
}

function outputs(dir: string, stdout: string, stderr: string): Array<[string, string]> {
  return [['stdout', stdout], ['stderr', stderr], ...readdirSync(dir).map((f): [string, string] => [f, readFileSync(join(dir, f), 'utf8')])];
}

interface Case {
  name: string;
  /** The hostile target, in front of this case's own reference where it needs a working API. */
  make: (reference: RunningReference) => Promise<Target>;
  codes: number[];
  /**
   * Wall-time bound of the whole CLI run on an idle machine; the test adds `work` of the measured
   * cheapest run's wall times, so the bound stretches with the machine's load. The defects it
   * catches wait far longer: an hour's Retry-After, the 30 min run budget, a timeout per request.
   */
  boundMs: number;
  /**
   * The run's own work in cheapest runs (default 10): what a busy machine stretches, while boundMs
   * does not. Measured with three cases at once on a saturated machine (load 30-45 on 2 cores), the
   * cases that stop early took at most 3.0 cheapest runs; those that run every check against
   * errors (500, 429) up to 5.7, so they get 20; a full run through a proxy is mostly work, not
   * waiting, and took up to 15.6, so it gets 30. With the cheapest run at 3 s that bound is still
   * 3 min, far inside the defects' waits (30 min, an hour).
   */
  work?: number;
  args?: string[];
  more?: (run: { stdout: string; stderr: string; result: RunResult | undefined }, target: Target, expect: ExpectStatic) => void;
}

/** A hostile target; `peer` is a second one it sends the kit on to (the cross-origin redirect). */
type Target = Hostile & { peer?: Hostile };

const withReference = (transform: (e: Exchange) => Exchange | void, stop?: { after: number; how: 'die' | 'hang' }) => (reference: RunningReference) => proxyTarget(reference.baseUrl, transform, stop);
const json = (res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** The reference itself at a base URL with a path the kit appends /api/... to (nothing to close). */
const referenceAt = (path: string) => async (reference: RunningReference): Promise<Target> => ({ url: `${reference.baseUrl}${path}`, authorized: 0, close: async () => {} });
const failed = (result: RunResult | undefined) => result?.checks.filter((c) => c.status === 'failed').map((c) => c.id);

/**
 * 3 MiB of spaces, made once (a fresh one per GET kept the test worker's thread, which serves every
 * case's reference and target, busy long enough to time out the other cases' requests), against a
 * 1 MiB --max-response-bytes: huge for the run, as the 20 MiB answers against the default 8 MiB cap
 * were, at an eighth of the bytes read (23 s of CPU for the case, measured). The default cap on a
 * 1 GB answer is test/suite/client-budgets.test.ts's.
 */
const HUGE = Buffer.alloc(3 * 1024 * 1024, 0x20);

const CASES: Case[] = [
  { name: 'refused', make: async () => { const t = await tcpTarget(() => undefined); await t.close(); return t; }, codes: [3], boundMs: 15_000 },
  { name: 'silent (accepts, never answers)', make: () => tcpTarget(() => undefined), codes: [3], boundMs: 20_000 },
  { name: 'garbage (not HTTP)', make: () => tcpTarget((s) => s.end('\x00\x01garbage\r\n\r\n')), codes: [3], boundMs: 15_000 },
  { name: 'reset on connect', make: () => tcpTarget((s) => s.destroy()), codes: [3], boundMs: 15_000 },
  { name: 'HTML 200 everywhere', make: () => httpTarget((_q, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html>hello</html>'); }), codes: [3], boundMs: 15_000 },
  { name: '500 everywhere', make: () => httpTarget((_q, res) => json(res, 500, { status: 500, message: 'boom', metadata: null })), codes: [1], boundMs: 60_000, work: 20 },
  { name: '429 forever, Retry-After 1', make: () => httpTarget((_q, res) => json(res, 429, { status: 429, message: 'slow down', metadata: null }, { 'retry-after': '1' })), codes: [1, 4], boundMs: 60_000, work: 20 },
  { name: '429 forever, Retry-After 3600', make: () => httpTarget((_q, res) => json(res, 429, { status: 429, message: 'slow down', metadata: null }, { 'retry-after': '3600' })), codes: [1, 4], boundMs: 60_000, work: 20 },
  {
    name: 'a huge answer to every GET',
    make: withReference((e) => (e.request.method === 'GET' ? { ...e, status: 200, body: HUGE } : e)),
    args: ['--max-response-bytes', String(1024 * 1024)],
    codes: [1], boundMs: 90_000, work: 30,
  },
  {
    name: 'slow drip',
    make: () => httpTarget((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 200);
    }),
    codes: [3], boundMs: 20_000,
  },
  { name: 'redirect loop', make: () => httpTarget((q, res) => { res.writeHead(302, { location: q.url ?? '/' }); res.end(); }), codes: [3], boundMs: 15_000 },
  {
    name: 'cross-origin redirect (no credential crosses)',
    make: async () => {
      const peer = await httpTarget((_q, res) => json(res, 200, { data: {} }));
      const front = await httpTarget((q, res) => { res.writeHead(307, { location: `${peer.url}${q.url ?? '/'}` }); res.end(); });
      const closeFront = front.close;
      // The same object (its count of authorized requests is live), closing both.
      return Object.assign(front, { peer, close: async () => { await closeFront(); await peer.close(); } });
    },
    codes: [3], boundMs: 15_000,
    more: (_run, target, expect) => expect(target.peer?.authorized).toBe(0),
  },
  {
    name: '403 for unknown ids',
    make: withReference((e) => (e.status === 404 ? rewriteJson({ ...e, status: 403 }, (j) => ({ ...j, status: 403 })) : e)),
    codes: [1], boundMs: 90_000, work: 30,
    more: ({ result }, _t, expect) => expect(result?.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toContain('EHB-002'),
  },
  {
    name: 'empty error bodies',
    make: withReference((e) => (e.status >= 400 ? { ...e, body: Buffer.alloc(0) } : e)),
    codes: [1], boundMs: 90_000, work: 30,
    more: ({ result }, _t, expect) => expect(result?.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toContain('ERR-001'),
  },
  {
    // Every request gets the reference's "no route" 404 (JSON), which reads like an unknown id.
    name: 'base URL with one /api too many (narrow)',
    make: referenceAt('/api'),
    args: ['--only', 'AUTH-001,EHS-007'],
    codes: [3], boundMs: 60_000,
    more: ({ stderr, result }, _t, expect) => {
      expect(stderr).toMatch(/has no route of the API: every request with the key was answered "no route" \(.*\); the base URL should not end in \/api: try http:\/\/127\.0\.0\.1:\d+\n?$/);
      expect(result?.aborted).toMatchObject({ exitCode: 3 });
    },
  },
  {
    name: 'a JSON 404 for every request',
    make: () => httpTarget((_q, res) => json(res, 404, { key: 'not_found', message: 'no route', metadata: null, status: 404 })),
    codes: [3], boundMs: 60_000,
    more: ({ stderr }, _t, expect) => {
      expect(stderr).toMatch(/has no route of the API/);
      expect(stderr).not.toMatch(/should not end in \/api/);
    },
  },
  {
    // The rest is the API (the bulk creation answers 400), so this is for AUTH-001 to judge: a 404 to a creation is not the key accepted.
    name: 'a 404 to every connection creation',
    make: withReference((e) => (e.request.method === 'POST' && e.request.url.startsWith('/api/connections') ? rewriteJson({ ...e, status: 404 }, () => ({ key: 'not_found', message: 'no route', metadata: null, status: 404 })) : e)),
    args: ['--only', 'AUTH-001'],
    codes: [1], boundMs: 90_000,
    more: ({ result }, _t, expect) => expect(failed(result)).toContain('AUTH-001'),
  },
  { name: 'dies mid-run', make: withReference(() => undefined, { after: 40, how: 'die' }), codes: [1, 4], boundMs: 90_000 },
  { name: 'hangs mid-run', make: withReference(() => undefined, { after: 40, how: 'hang' }), codes: [1, 4], boundMs: 90_000 },
  {
    name: 'echoes every request into its answers',
    make: withReference(echoRequests()),
    codes: [1], boundMs: 90_000, work: 30,
  },
  {
    name: 'control characters and CI commands in its messages',
    make: withReference((e) => (e.status >= 400 ? rewriteJson(e, (j) => ({ ...j, message: `\x1b[31mred\x1b[0m\n::error title=pwned::owned\n##vso[task.setvariable variable=x]1\r\u202e\x00` })) : e)),
    codes: [1], boundMs: 90_000, work: 30,
    more: ({ stdout }, _t, expect) => {
      expect(stdout).not.toMatch(/[\x00\x1b\r\u202e]/);
      expect(stdout.split('\n').filter((l) => /^\s*(::|##vso\[|##\[)/.test(l))).toEqual([]);
    },
  },
];

/** The longest first (the full runs behind a proxy), so no long case starts last and runs alone. */
const LONGEST_FIRST = [...CASES].sort((a, b) => b.boundMs - a.boundMs);

describe.concurrent('hostile targets never end CONFORMANT', () => {
  beforeAll(async () => {
    fixedMs = Math.max(...(await Promise.all(Array.from({ length: LANES }, () => cliFixedCostMs(servers.run)))));
  }, 300_000);

  test.for(LONGEST_FIRST)('$name', { timeout: 900_000 }, async (c, { expect }) => {
    // Its own reference: the runs that reach one create and list data, and no case may see another's.
    const reference = await startReference({ port: 0, faults: [] });
    const target = await c.make(reference);
    const started = Date.now();
    try {
      const work = c.work ?? 10;
      const bound = c.boundMs + work * fixedMs;
      const run = await servers.run(['run', '--base-url', target.url, `--api-key=${reference.apiKey}`, `--org-key=${reference.orgKey}`, '--profile', 'reference', '--seed', '7', '--num-runs', '3', '--timeout-ms', '5000', '--max-retry-after-s', '2', '--max-rps', '1000', ...(c.args ?? [])], {}, bound + 30_000);
      const elapsed = Date.now() - started;
      expect(c.codes, `exit ${run.code}\n${run.stderr}\n${run.stdout.slice(-3000)}`).toContain(run.code);
      expect(elapsed, `bound ${bound} ms (${c.boundMs} + ${work} × ${fixedMs})`).toBeLessThan(bound);
      // Complete, well-formed reports, whatever the exit.
      expect(run.result, 'results.json').toBeDefined();
      expect(run.result?.verdict?.verdict).not.toBe('CONFORMANT');
      await expectValidJunit(readFileSync(join(run.reports, 'junit.xml'), 'utf8'));
      if (run.code === 3) expect(run.stderr.trim().split('\n')).toHaveLength(1);
      else expect(run.stdout).toMatch(/^verdict: (NOT CONFORMANT|INCOMPLETE) \(requirements: MUST/m);
      for (const [file, text] of outputs(run.reports, run.stdout, run.stderr)) {
        for (const secret of [reference.apiKey, reference.orgKey, ...PROFILE_SECRETS]) {
          for (const form of encodings(secret)) expect(holds(text, form), `${file} holds a secret (${form.slice(0, 4)}…)`).toBe(false);
        }
      }
      c.more?.({ stdout: run.stdout, stderr: run.stderr, result: run.result }, target, expect);
    } finally {
      await target.close();
      await reference.close();
    }
  });
});

describe.concurrent('an echoing target, secrets JSON escapes and a 2-character key', () => {
  const ENV_SECRET = 'env"\\secret-3';
  const DB_PASSWORD = 'pw"\\secret-4';
  let dir: string;
  let profile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dssc-hostile-'));
    profile = join(dir, 'profile.json');
    // The reference profile with one secret read through {"$env": …}.
    const text = readFileSync(referenceProfilePath, 'utf8').replace('"dssc-example-secret-key"', '{ "$env": "DSSC_TEST_ENV_SECRET" }');
    const { $schema: _schema, ...json } = JSON.parse(text) as Record<string, unknown>;
    writeFileSync(profile, JSON.stringify(json));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test.for([
    { name: 'a quote and a backslash in the API key, org key, a profile $env secret and the --source-db password', apiKey: 'ak"\\quote-Key1', orgKey: 'org"\\Key-2x', only: [] as string[] },
    { name: 'a 2-character API key', apiKey: 'k1', orgKey: 'org-Key-2x', only: ['auth', 'errors', 'CONN-001'] },
  ])('$name: no secret in any output', async ({ apiKey, orgKey, only }, { expect }) => {
    const upstream = await startReference({ port: 0, faults: [], apiKey, orgKey });
    const bodies: string[] = [];
    const auth = new Set<string>();
    const target = await proxyTarget(upstream.baseUrl, echoRequests((r) => {
      bodies.push(r.body.toString('utf8'));
      auth.add(String(r.headers.authorization ?? ''));
    }));
    try {
      const dbUrl = `postgres://dssc:${encodeURIComponent(DB_PASSWORD)}@127.0.0.1:9/dssc`;
      // 5 s per request, as the cases above: with 2 s, a busy machine (three runs at once, the
      // references and targets all in this worker) left the preflight unanswered: exit 3.
      const run = await servers.run(['run', '--base-url', target.url, `--api-key=${apiKey}`, `--org-key=${orgKey}`, '--profile', profile, '--source-db', dbUrl, '--seed', '7', '--num-runs', '3', '--timeout-ms', '5000', '--max-retry-after-s', '2', '--max-rps', '1000', ...(only.length ? ['--only', only.join(',')] : [])], { DSSC_TEST_ENV_SECRET: ENV_SECRET });
      expect([1, 4], `exit ${run.code}\n${run.stderr}\n${run.stdout.slice(-3000)}`).toContain(run.code);
      await expectValidJunit(readFileSync(join(run.reports, 'junit.xml'), 'utf8'));
      // The secrets really went out, so the echo really carried them back.
      expect([...auth]).toContain(`Bearer ${apiKey}`);
      if (only.length === 0) {
        for (const secret of [ENV_SECRET, DB_PASSWORD]) expect(bodies.some((b) => b.includes(JSON.stringify(secret).slice(1, -1))), secret).toBe(true);
      }
      for (const [file, text] of outputs(run.reports, run.stdout, run.stderr)) {
        if (file.endsWith('.json')) expect(() => JSON.parse(text), file).not.toThrow();
        if (file.endsWith('.ndjson')) for (const line of text.trim().split('\n')) expect(() => JSON.parse(line), file).not.toThrow();
        for (const secret of [apiKey, orgKey, ENV_SECRET, DB_PASSWORD, ...PROFILE_SECRETS]) {
          for (const form of encodings(secret)) expect(holds(text, form), `${file} holds a secret (${form.slice(0, 4)}…)`).toBe(false);
        }
      }
    } finally {
      await target.close();
      await upstream.close();
    }
  });

  test.for([
    ['its factory throws', 'export default (ctx) => { throw new Error(`login refused for ${ctx.apiKey}: ${JSON.stringify({ key: ctx.apiKey, env: process.env.DSSC_TEST_ENV_SECRET })}`); };'],
    ['it throws as it loads', 'throw new Error(`no ${JSON.stringify(JSON.stringify({ s: process.env.DSSC_TEST_ENV_SECRET }))}`);'],
  ] as Array<[string, string]>)('an adapter whose error quotes the secrets (%s): one redacted line, exit 2', async ([_name, source], { expect }) => {
    const adapter = join(dir, `adapter-${source.length}.mjs`);
    writeFileSync(adapter, source);
    const apiKey = 'ak"\\quote-Key1';
    const run = await servers.run(['run', '--base-url', 'http://127.0.0.1:9', `--api-key=${apiKey}`, '--profile', profile, '--adapter', adapter], { DSSC_TEST_ENV_SECRET: ENV_SECRET });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('[REDACTED]');
    for (const [file, text] of outputs(run.reports, run.stdout, run.stderr)) {
      for (const secret of [apiKey, ENV_SECRET]) {
        for (const form of encodings(secret)) expect(holds(text, form), `${file} holds a secret (${form.slice(0, 4)}…)`).toBe(false);
      }
    }
  });
});

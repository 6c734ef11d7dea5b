import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from '../suite/run-cli.ts';
import { findOldNode, NO_OLD_NODE, refusal } from './old-node.ts';

// The way a CI pipeline uses the kit: `npm pack`, install into an empty project, `npx dss-conformance
// run`. The published package runs compiled JavaScript, so this is the only test of dist/.

const exec = promisify(execFile);
const npm = (args: string[], cwd: string, path = process.env.PATH ?? '') =>
  exec('npm', args, { cwd, env: { ...process.env, PATH: path, npm_config_loglevel: 'error' }, maxBuffer: 32 * 1024 * 1024, timeout: 480_000 });

let tarball = '';

beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'dssc-pack-'));
  await npm(['pack', '--pack-destination', out], ROOT);
  tarball = join(out, readdirSync(out).find((f) => f.endsWith('.tgz'))!);
});

/** Installs the tarball into a new empty project, with npm run by the Node in `nodeBinDir`. */
async function install(nodeBinDir: string): Promise<string> {
  const project = mkdtempSync(join(tmpdir(), 'dssc-consumer-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  await npm(['install', '--no-audit', '--no-fund', tarball], project, [nodeBinDir, process.env.PATH].join(delimiter));
  return project;
}

// The Node 24, Node 22 and Node 20 tests share one install (made with the project's Node 24):
// what each Node runs is the same installed package (the package's files do not depend on the
// npm that unpacked them), and the suite makes two installs fewer.
let shared: Promise<string> | undefined;
const installed = () => (shared ??= install(dirname(process.execPath)));

/** `npx dss-conformance ARGS` in `project`, with the Node in `nodeBinDir` first on PATH. */
function npx(project: string, nodeBinDir: string, args: string[], timeout = 120_000) {
  return exec('npx', ['dss-conformance', ...args], {
    cwd: project,
    env: { ...process.env, PATH: [nodeBinDir, process.env.PATH].join(delimiter) },
    timeout,
  });
}

async function run(project: string, nodeBinDir: string): Promise<{ stdout: string; version: string }> {
  const version = (await exec(join(nodeBinDir, 'node'), ['--version'])).stdout.trim();
  // A whole run: minutes on a saturated machine (120 s ran out at load 40), inside the test's 10.
  // A report folder of its own: the runs on Node 24 and Node 22 go on side by side in one install.
  const reports = mkdtempSync(join(tmpdir(), 'dssc-pack-reports-'));
  const { stdout } = await npx(project, nodeBinDir, ['run', '--seed', '1', '--num-runs', '3', '--reports', reports], 480_000);
  return { stdout, version };
}

describe.concurrent('npm pack, install into an empty project, npx dss-conformance run', () => {
  test('on an older Node (the system Node 20): --help is one line naming the versions, exit 2', async () => {
    const old = findOldNode();
    expect(old, NO_OLD_NODE).toBeDefined();
    const project = await installed();
    const error = await npx(project, old!.dir, ['--help'], 60_000).then(
      () => undefined,
      (e: { code: number; stderr: string; stdout: string }) => e,
    );
    expect(error?.code).toBe(2);
    // npx itself may warn on stderr (npm's own lines); ours is the one other line, no stack trace.
    const ours = (error?.stderr ?? '').split('\n').filter((l) => l.trim() && !/^npm (warn|notice)/i.test(l));
    expect(ours).toEqual([refusal(old!.version)]);
    expect(error?.stdout).toBe('');
  });

  test('on Node 24', async () => {
    const { stdout, version } = await run(await installed(), dirname(process.execPath));
    expect(version).toMatch(/^v24\./);
    expect(stdout).toMatch(/checks: \d+ passed, 0 failed/);
  });

  test('on Node 22', async () => {
    const node22 = mkdtempSync(join(tmpdir(), 'dssc-node22-'));
    writeFileSync(join(node22, 'package.json'), JSON.stringify({ name: 'node22', private: true, allowScripts: { node: true } }));
    await npm(['install', '--no-audit', '--no-fund', 'node@22'], node22);
    const bin22 = join(node22, 'node_modules', '.bin');
    const { stdout, version } = await run(await installed(), bin22);
    expect(version).toMatch(/^v22\./);
    expect(stdout).toMatch(/checks: \d+ passed, 0 failed/);
  });
});

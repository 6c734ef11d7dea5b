import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from '../suite/run-cli.ts';

// The way a CI pipeline uses the kit: `npm pack`, install into an empty project, `npx dss-conformance
// run`. The published package runs compiled JavaScript, so this is the only test of dist/.

const exec = promisify(execFile);
const npm = (args: string[], cwd: string, path = process.env.PATH ?? '') =>
  exec('npm', args, { cwd, env: { ...process.env, PATH: path, npm_config_loglevel: 'error' }, maxBuffer: 32 * 1024 * 1024, timeout: 240_000 });

let tarball = '';

beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'dssc-pack-'));
  await npm(['pack', '--pack-destination', out], ROOT);
  tarball = join(out, readdirSync(out).find((f) => f.endsWith('.tgz'))!);
}, 240_000);

async function installAndRun(nodeBinDir: string): Promise<{ stdout: string; version: string }> {
  const project = mkdtempSync(join(tmpdir(), 'dssc-consumer-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  const path = [nodeBinDir, process.env.PATH].join(delimiter);
  await npm(['install', '--no-audit', '--no-fund', tarball], project, path);
  const version = (await exec(join(nodeBinDir, 'node'), ['--version'])).stdout.trim();
  const { stdout } = await exec('npx', ['dss-conformance', 'run', '--seed', '1', '--num-runs', '3'], {
    cwd: project,
    env: { ...process.env, PATH: path },
    timeout: 120_000,
  });
  return { stdout, version };
}

describe.concurrent('npm pack, install into an empty project, npx dss-conformance run', () => {
  test('on the system Node 20: one line naming the versions, exit 2', async () => {
    const project = mkdtempSync(join(tmpdir(), 'dssc-consumer20-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    const path = ['/usr/bin', process.env.PATH].join(delimiter);
    expect((await exec('/usr/bin/node', ['--version'])).stdout).toMatch(/^v2[01]\./);
    await npm(['install', '--no-audit', '--no-fund', tarball], project, path);
    const error = await exec('npx', ['dss-conformance', 'run', '--seed', '1'], { cwd: project, env: { ...process.env, PATH: path }, timeout: 60_000 }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(error?.code).toBe(2);
    // npx itself may warn on stderr (npm's own lines); ours is the one other line.
    const ours = (error?.stderr ?? '').split('\n').filter((l) => l.trim() && !/^npm (warn|notice)/i.test(l));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/^dss-conformance: needs Node\.js >= 22\.19, found 2[01]\.\d+\.\d+$/);
  }, 240_000);

  test('on Node 24', async () => {
    const { stdout, version } = await installAndRun(dirname(process.execPath));
    expect(version).toMatch(/^v24\./);
    expect(stdout).toMatch(/checks: \d+ passed, 0 failed/);
  }, 240_000);

  test('on Node 22', async () => {
    const node22 = mkdtempSync(join(tmpdir(), 'dssc-node22-'));
    writeFileSync(join(node22, 'package.json'), JSON.stringify({ name: 'node22', private: true, allowScripts: { node: true } }));
    await npm(['install', '--no-audit', '--no-fund', 'node@22'], node22);
    const { stdout, version } = await installAndRun(join(node22, 'node_modules', '.bin'));
    expect(version).toMatch(/^v22\./);
    expect(stdout).toMatch(/checks: \d+ passed, 0 failed/);
  }, 240_000);
});

import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { ROOT } from '../suite/run-cli.ts';

// The bin names the Node it needs before importing anything: on the machine's system Node (20,
// end of life) that is one line and exit 2, not a dependency's stack trace.

const exec = promisify(execFile);
/** An old Node: the system's (Debian's /usr/bin/node is 20 on our machines and in CI). */
const OLD_NODE = ['/usr/bin/node', '/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p) && Number(/^v(\d+)/.exec(readVersion(p))?.[1]) < 22);

function readVersion(path: string): string {
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

test('the minimum in the bin equals package.json engines', () => {
  const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const bin = readFileSync(join(ROOT, 'bin/dss-conformance.js'), 'utf8');
  const minimum = /const MINIMUM = \[(\d+), (\d+)\]/.exec(bin);
  expect(engines).toBe(`>=${minimum?.[1]}.${minimum?.[2]}`);
});

test('under an older Node the bin exits 2 with one line naming both versions', async () => {
  expect(OLD_NODE, 'no Node older than 22 on this machine (expected the system Node 20 at /usr/bin/node)').toBeDefined();
  const error = await exec(OLD_NODE!, [join(ROOT, 'bin/dss-conformance.js'), 'run', '--seed', '1']).then(() => undefined, (e: { code: number; stderr: string; stdout: string }) => e);
  expect(error?.code).toBe(2);
  expect(error?.stderr).toMatch(/^dss-conformance: needs Node\.js >= 22\.19, found 2\d\.\d+\.\d+\n$/);
  expect(error?.stdout).toBe('');
});

test('under the project Node the bin runs the CLI', async () => {
  const { stdout } = await exec(process.execPath, [join(ROOT, 'bin/dss-conformance.js'), '--help']);
  expect(stdout).toMatch(/^usage: dss-conformance <command>/);
});

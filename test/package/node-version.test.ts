import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { ROOT } from '../suite/run-cli.ts';
import { findOldNode, MINIMUM, NO_OLD_NODE, refusal } from './old-node.ts';

// The bin names the Node it needs before importing anything: on the machine's system Node (20,
// end of life) that is one line and exit 2, not a dependency's stack trace. The packed package is
// tested the same way in pack.test.ts.

const exec = promisify(execFile);
const BIN = join(ROOT, 'bin/dss-conformance.js');
const bin = readFileSync(BIN, 'utf8');

test('the minimum in the bin equals package.json engines', () => {
  const minimum = /const MINIMUM = \[(\d+), (\d+)\]/.exec(bin);
  expect([Number(minimum?.[1]), Number(minimum?.[2])]).toEqual(MINIMUM);
});

test('the check uses nothing newer than Node 14 and imports only node:fs statically', () => {
  // A static import is loaded (and parsed) before the check runs; the CLI comes by dynamic import after it.
  const statics = [...bin.matchAll(/^import\s.*?from\s+'([^']+)'/gms)].map((m) => m[1]);
  expect(statics).toEqual(['node:fs']);
  const check = bin.slice(0, bin.indexOf('await import('));
  expect(check).toContain('process.exit(2)');
  // Syntax and globals later than Node 14: logical assignment (15), Array#at (16.6), Object.hasOwn
  // (16.9), structuredClone (17), class private members and static blocks.
  for (const newer of ['??=', '||=', '&&=', '.at(', 'Object.hasOwn', 'structuredClone', 'static {', '#', 'import.meta.resolve', 'import.meta.dirname']) {
    expect(check.replace(/^#!.*\n/, '').replace(/^\s*\/\/.*$/gm, ''), newer).not.toContain(newer);
  }
});

// --help, and run: run is where an older Node met undici's stack trace (--help alone imports no undici).
test.each([[['--help']], [['run', '--seed', '1']]])('under an older Node, %j exits 2 with one line naming both versions', async (args) => {
  const old = findOldNode();
  expect(old, NO_OLD_NODE).toBeDefined();
  const error = await exec(old!.path, [BIN, ...args]).then(
    () => undefined,
    (e: { code: number; stderr: string; stdout: string }) => e,
  );
  expect(error?.code).toBe(2);
  // Exactly the one line: no stack trace, nothing else.
  expect(error?.stderr).toBe(`${refusal(old!.version)}\n`);
  expect(error?.stdout).toBe('');
});

test('under the project Node, --help runs the CLI', async () => {
  const { stdout, stderr } = await exec(process.execPath, [BIN, '--help']);
  expect(stdout).toMatch(/^usage: dss-conformance <command>/);
  expect(stderr).toBe('');
});

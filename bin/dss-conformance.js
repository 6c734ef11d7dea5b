#!/usr/bin/env node
// Checked before anything else is imported: on an older Node the kit's dependencies fail with a
// stack trace, so the version is named in one line instead (exit 2, a setup error). Kept to syntax
// every Node since 14 parses; the minimum equals package.json's engines (a test keeps them equal).
import { existsSync } from 'node:fs';

const MINIMUM = [22, 19];
const found = process.versions.node;
const [major, minor] = found.split('.').map(Number);
if (major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1])) {
  process.stderr.write(`dss-conformance: needs Node.js >= ${MINIMUM.join('.')}, found ${found}\n`);
  process.exit(2);
}

// In a source checkout Node runs the TypeScript directly; a published package has only dist/
// (Node does not strip types under node_modules).
const source = new URL('../src/cli.ts', import.meta.url);
const entry = existsSync(source) ? source : new URL('../dist/src/cli.js', import.meta.url);
await import(entry.href);

#!/usr/bin/env node
// In a source checkout Node runs the TypeScript directly; a published package has only dist/
// (Node does not strip types under node_modules).
import { existsSync } from 'node:fs';
const source = new URL('../src/cli.ts', import.meta.url);
const entry = existsSync(source) ? source : new URL('../dist/src/cli.js', import.meta.url);
await import(entry.href);

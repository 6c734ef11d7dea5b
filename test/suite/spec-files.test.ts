import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadRequirements } from '../../src/report/results.ts';
import { specFilesFor, specGlob } from '../../src/runner/spec-files.ts';
import { ROOT } from './run-cli.ts';

// A run that selects some requirements loads only the spec files requirements.json names for them
// (src/runner/spec-files.ts): a check titled with an ID in another file would then not run.

const requirements = loadRequirements('all');
const specOf = new Map(requirements.map((r) => [r.id, r.spec]));

/** The requirement IDs that start the titles of a spec file's checks and tests. */
function titledIds(source: string): string[] {
  return [...source.matchAll(/\b(?:check|test|it)(?:\.\w+)*\(\s*[`'"]([A-Z]{2,5}-\d{3})\b/g)].map((m) => m[1]!);
}

describe('which spec files a run loads', () => {
  const files = readdirSync(join(ROOT, 'specs')).filter((f) => f.endsWith('.spec.ts'));

  test.for(files)('every check of %s is titled with a requirement requirements.json places in it', (file) => {
    const ids = titledIds(readFileSync(join(ROOT, 'specs', file), 'utf8'));
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(specOf.get(id), `${file}: ${id}`).toBe(file);
  });

  test('every requirement has checks in the file it names', () => {
    const titled = new Map(files.map((f) => [f, new Set(titledIds(readFileSync(join(ROOT, 'specs', f), 'utf8')))]));
    for (const r of requirements) expect(titled.get(r.spec)?.has(r.id), `${r.id} in ${r.spec}`).toBe(true);
  });

  test('a selection loads the files of its requirements; no selection, or one with none, loads every file', () => {
    expect(specFilesFor(undefined)).toEqual([specGlob()]);
    expect(specFilesFor([])).toEqual([specGlob()]);
    expect(specFilesFor(['AUTH-003'])).toEqual(['specs/auth.spec.ts']);
    expect(specFilesFor(['WH-016', 'ERR-002', 'WH-017'])).toEqual(['specs/errors.spec.ts', 'specs/webhooks.spec.ts']);
  });
});

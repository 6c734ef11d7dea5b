// Writes test/file-durations.json from vitest's cache of the last `npm test` in this checkout
// (node_modules/.vite/vitest/*/results.json): each test file's wall time, which vitest.config.ts's
// sequencer uses to start the longest files first in a fresh clone, where vitest has no cache.
// Order only: a stale figure makes a run slower, never different.
//
//   npm test && node bench/file-durations.ts
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheDir = join('node_modules', '.vite', 'vitest');
const newest = new Map<string, { duration: number; lastRun: number }>();
const caches = existsSync(cacheDir) ? readdirSync(cacheDir).map((hash) => join(cacheDir, hash, 'results.json')).filter((f) => existsSync(f)) : [];
if (caches.length === 0) {
  console.error(`no vitest cache under ${cacheDir}: run npm test first`);
  process.exit(2);
}
for (const cache of caches) {
  const results = JSON.parse(readFileSync(cache, 'utf8')) as { projects: Record<string, { files: Record<string, { duration?: number; lastRun?: number }> }> };
  for (const project of Object.values(results.projects)) {
    for (const [file, result] of Object.entries(project.files)) {
      if (!file.startsWith('test/') || !file.endsWith('.test.ts') || result.duration === undefined) continue;
      const lastRun = result.lastRun ?? 0;
      if (lastRun >= (newest.get(file)?.lastRun ?? -1)) newest.set(file, { duration: Math.round(result.duration), lastRun });
    }
  }
}
const durations = Object.fromEntries([...newest].map(([file, r]) => [file, r.duration]));
const sorted = Object.fromEntries(Object.entries(durations).sort((a, b) => b[1] - a[1]));
writeFileSync(join('test', 'file-durations.json'), JSON.stringify(sorted, null, 2) + '\n');
console.log(`test/file-durations.json: ${Object.keys(sorted).length} files`);

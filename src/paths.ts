import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Modules run from src/ in a checkout and from dist/src/ in the published package, so data files
// are found from the package root rather than from a fixed relative depth.
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'schemas'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('dss-conformance: cannot find the package root (schemas/ next to package.json)');
    dir = parent;
  }
  return dir;
}

export const packageRoot = findPackageRoot();
export const schemasDir = join(packageRoot, 'schemas');
export const fixturesDir = join(packageRoot, 'fixtures');

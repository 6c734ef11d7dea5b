import { accessSync, constants, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../cli-errors.ts';

/** Checked before the run (run's and receiver's): a report folder that cannot be written is a usage error, not a lost run. */
export function ensureWritable(dir: string, label: string): void {
  try {
    // One level at a time: Node's recursive mkdirSync never returns for some paths (under /proc).
    const missing: string[] = [];
    let existing = dir;
    while (!existsSync(existing)) {
      missing.unshift(existing);
      existing = dirname(existing);
    }
    for (const level of missing) mkdirSync(level);
    accessSync(dir, constants.W_OK);
    const probe = join(dir, `.dssc-write-probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    throw new UsageError(`${label} ${dir}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

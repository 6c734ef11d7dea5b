import { tolerateClosedOutput } from './cli-output.ts';
import { enableCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';

// Compiled code is cached on disk, so a second run starts faster, and so do the suite's worker
// processes, which inherit the variable. The commands are imported below, after this.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'dss-conformance-compile-cache');
enableCompileCache(process.env.NODE_COMPILE_CACHE);
tolerateClosedOutput();

// V8 grows a heap's young generation up to 3 x 16 MB when much survives a collection, and a run
// has two heaps (this thread and the suite's worker): ~90 MB of a default run's peak RSS went to
// young generations that a 1 MB one does the same work in. A factor of 1 keeps each at its
// starting size; the flag is read when a young generation would grow, so it applies to this
// thread's heap too. Measured: peak RSS of the default run 416-469 -> 360-375 MiB, CPU unchanged
// within the noise (README, Measured).
setFlagsFromString('--semi-space-growth-factor=1');

const { cli } = await import('./cli-main.ts');
process.exitCode = await cli(process.argv.slice(2));

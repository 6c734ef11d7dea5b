import { tolerateClosedOutput } from './cli-output.ts';
import { enableCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Compiled code is cached on disk, so a second run starts faster, and so do the suite's worker
// processes, which inherit the variable. The commands are imported below, after this.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'dss-conformance-compile-cache');
enableCompileCache(process.env.NODE_COMPILE_CACHE);
tolerateClosedOutput();

const { cli } = await import('./cli-main.ts');
process.exitCode = await cli(process.argv.slice(2));

import { Worker } from 'node:worker_threads';
import type { Engine } from './native-postgres.ts';

// The fallback embedded database: PGlite (PostgreSQL compiled to WASM) behind its socket server,
// in a thread of its own (its start blocks its thread for ~1-2 s). Used where no native binaries
// are installed for the platform, when the native server fails to start, or when asked for
// (DSSC_EMBEDDED_DB=pglite). It takes any password. It costs ~0.8 GB of RSS and 2-4 s of CPU.

function threadFile(): URL {
  // TypeScript in a checkout (Node strips the types), compiled JavaScript in the published package.
  return new URL(import.meta.url.endsWith('.ts') ? './embedded-thread.ts' : './embedded-thread.js', import.meta.url);
}

export function startPglite(): Engine {
  // None of the parent's Node flags (--input-type, a test runner's loaders): the thread needs none.
  const worker = new Worker(threadFile(), { execArgv: [] });
  const upstream = new Promise<{ host: string; port: number; noDelay: boolean }>((resolve, reject) => {
    worker.once('message', (m: { port?: number; error?: string }) => (m.port ? resolve({ host: '127.0.0.1', port: m.port, noDelay: true }) : reject(new Error(`PGlite did not start: ${m.error ?? 'no reason given'}`))));
    worker.once('error', (e) => reject(new Error(`PGlite did not start: ${String(e.message).split('\n')[0]}`)));
    worker.once('exit', (code) => reject(new Error(`PGlite stopped (exit ${code})`)));
  });
  upstream.catch(() => undefined);
  return {
    upstream,
    // In memory only: nothing to flush, and a run that ended before it was up must not wait for it.
    stop: async () => void (await worker.terminate()),
    // The thread ends with the process.
    stopSync: () => undefined,
  };
}

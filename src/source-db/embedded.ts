import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';

// Without --source-db the kit brings its own Postgres: PGlite (Postgres compiled to WASM) behind
// its socket server on the loopback, so the target and the kit's `pg` clients speak the ordinary
// wire protocol to it. It takes ~0.6-2 s to start, so it starts in a thread of its own, in parallel
// with the rest of the run: a loopback listener answers at once and hands each connection through
// when the database is up, so the URL is known at once and only the first query waits.

export interface EmbeddedSourceDb {
  /** postgres://postgres:…@127.0.0.1:PORT/postgres?sslmode=disable; the password is random (PGlite takes any). */
  url: string;
  /** Resolves when the database answers; rejects (one line) when it could not start. */
  ready: Promise<void>;
  close(): Promise<void>;
}

function threadFile(): URL {
  // TypeScript in a checkout (Node strips the types), compiled JavaScript in the published package.
  return new URL(import.meta.url.endsWith('.ts') ? './embedded-thread.ts' : './embedded-thread.js', import.meta.url);
}

/** Starts the database in its thread (without waiting for it) and the loopback listener in front of it. */
export async function startEmbeddedSourceDb(): Promise<EmbeddedSourceDb> {
  // None of the parent's Node flags (--input-type, a test runner's loaders): the thread needs none.
  const worker = new Worker(threadFile(), { execArgv: [] });
  const ready = new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port?: number; error?: string }) => (m.port ? resolve(m.port) : reject(new Error(`the embedded source database did not start: ${m.error ?? 'no reason given'}`))));
    worker.once('error', (e) => reject(new Error(`the embedded source database did not start: ${String(e.message).split('\n')[0]}`)));
    worker.once('exit', (code) => reject(new Error(`the embedded source database stopped (exit ${code})`)));
  });
  ready.catch(() => undefined);
  // What callers await; a start that fails (or a thread ended early) is theirs to see, never an unhandled rejection.
  const started = ready.then(() => undefined);
  started.catch(() => undefined);
  const sockets = new Set<Socket>();
  // No Nagle on either leg: a query and its answer are small writes, and Nagle with delayed ACKs
  // held each one ~40 ms (50 upserts took 1.8 s instead of 30 ms).
  const proxy: Server = createServer({ noDelay: true }, (client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    ready.then(
      (port) => {
        if (client.destroyed) return;
        const upstream = connect({ port, host: '127.0.0.1', noDelay: true });
        sockets.add(upstream);
        upstream.on('close', () => (sockets.delete(upstream), client.destroy()));
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
      },
      () => client.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = proxy.address() as { port: number };
  // A password although PGlite ignores it: a target may refuse a connection without one.
  const password = randomBytes(12).toString('hex');
  let closed: Promise<void> | undefined;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres?sslmode=disable`,
    ready: started,
    close: () => {
      closed ??= (async () => {
        proxy.close();
        for (const s of sockets) s.destroy();
        // In memory only: nothing to flush, and a run that ended before the database was up
        // must not wait for it.
        await worker.terminate();
      })();
      return closed;
    },
  };
}

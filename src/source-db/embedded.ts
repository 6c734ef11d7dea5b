import { randomBytes } from 'node:crypto';
import { createServer, connect, type NetConnectOpts, type Server, type Socket } from 'node:net';
import { NoNativePostgres, StartTimeout, startNativePostgres, type Engine } from './native-postgres.ts';
import { startPglite } from './pglite-engine.ts';

// Without --source-db the kit brings its own Postgres: the native server (native-postgres.ts), or
// PGlite where there is none. Either starts in parallel with the rest of the run, behind a
// loopback listener that answers at once and hands each connection through when the database is
// up: the URL is known at once, and a connection made early waits instead of being refused.

export interface EmbeddedSourceDb {
  /** postgres://postgres:…@127.0.0.1:PORT/postgres?sslmode=disable; the password is random, this run's. */
  url: string;
  /** Resolves when the database answers; rejects (one line) when it could not start. */
  ready: Promise<void>;
  /** Which database answered (once ready): 'postgres' (native) or 'pglite'. */
  engine(): 'postgres' | 'pglite' | undefined;
  /** The native server's data folder, once made; removed by close. */
  dataDir(): string | undefined;
  close(): Promise<void>;
  /** The server stopped and its files removed before returning: for an interrupt's handler. */
  closeSync(): void;
}

export interface EmbeddedOptions {
  /** 'postgres' only (no fallback), 'pglite' only, or the native one with PGlite as fallback (default; DSSC_EMBEDDED_DB). */
  engine?: 'postgres' | 'pglite' | 'auto' | undefined;
  /** How long the native server may take to answer (the run derives it from --max-duration). */
  startTimeoutMs?: number | undefined;
  /** One line when the native server failed and PGlite is used instead. */
  onNote?: ((line: string) => void) | undefined;
}

/** DSSC_EMBEDDED_DB=pglite|postgres|auto: which embedded database a run starts. */
export function engineFromEnv(): EmbeddedOptions['engine'] {
  const value = process.env.DSSC_EMBEDDED_DB?.trim().toLowerCase();
  return value === 'pglite' || value === 'postgres' || value === 'auto' ? value : undefined;
}

/** Starts the database (without waiting for it) and the loopback listener in front of it. */
export async function startEmbeddedSourceDb(o: EmbeddedOptions = {}): Promise<EmbeddedSourceDb> {
  const choice = o.engine ?? engineFromEnv() ?? 'auto';
  const password = randomBytes(12).toString('hex');
  let engine: Engine;
  let answered: 'postgres' | 'pglite' | undefined;
  let upstream: Promise<NetConnectOpts>;
  let closing = false;
  if (choice === 'pglite') {
    engine = startPglite();
    upstream = engine.upstream.then((u) => ((answered = 'pglite'), u));
  } else {
    engine = startNativePostgres({ password, startTimeoutMs: o.startTimeoutMs ?? 60_000 });
    upstream = engine.upstream.then(
      (u) => ((answered = 'postgres'), u),
      (error: Error) => {
        if (choice === 'postgres' || error instanceof StartTimeout || closing) throw new Error(`the embedded PostgreSQL did not start: ${error.message}`);
        // No binaries for this platform is expected there; a failure is worth a line.
        if (!(error instanceof NoNativePostgres)) o.onNote?.(`the embedded PostgreSQL did not start (${error.message}): PGlite instead`);
        void engine.stop();
        engine = startPglite();
        return engine.upstream.then((u) => ((answered = 'pglite'), u));
      },
    );
  }
  upstream.catch(() => undefined);
  // What callers await; a start that fails is theirs to see, never an unhandled rejection.
  const ready = upstream.then(() => undefined);
  ready.catch(() => undefined);

  const sockets = new Set<Socket>();
  // No Nagle on the client's leg: a query and its answer are small writes, and Nagle with delayed
  // ACKs held each one ~40 ms.
  const proxy: Server = createServer({ noDelay: true }, (client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    upstream.then(
      (to) => {
        if (client.destroyed) return;
        const server = connect(to);
        sockets.add(server);
        server.on('close', () => (sockets.delete(server), client.destroy()));
        server.on('error', () => client.destroy());
        client.on('close', () => server.destroy());
        client.pipe(server);
        server.pipe(client);
      },
      () => client.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(0, '127.0.0.1', () => resolve());
  }).catch(async (error: unknown) => {
    await engine.stop();
    throw error;
  });
  const { port } = proxy.address() as { port: number };
  let closed: Promise<void> | undefined;
  const drop = () => {
    proxy.close();
    for (const s of sockets) s.destroy();
  };
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres?sslmode=disable`,
    ready,
    engine: () => answered,
    dataDir: () => engine.dataDir?.(),
    close: () => {
      closing = true;
      closed ??= (async () => {
        drop();
        await engine.stop();
      })();
      return closed;
    },
    closeSync: () => {
      closing = true;
      drop();
      engine.stopSync();
    },
  };
}

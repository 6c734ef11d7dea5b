import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';

// The embedded Postgres, in a thread of its own: PGlite's start blocks its thread for ~2 s (initdb
// in WASM), and the main thread serves the embedded reference meanwhile. Posts { port } when the
// socket server listens, { error } when it cannot start; 'stop' closes it and posts 'stopped'.

// Normal priority: at the lowest one a busy machine starved the start past the kit's connect
// timeout, and every webhook check became an error.
const port = parentPort!;

/**
 * A fresh database's files, kept from the first start (per PGlite version, beside vitest's cache):
 * loading them skips initdb, ~2 s -> ~0.6 s. Undefined when it cannot be kept.
 */
function cacheFile(): string | undefined {
  try {
    let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    while (!dir.endsWith('pglite')) dir = dirname(dir);
    const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    return join(tmpdir(), 'dss-conformance-pglite', `fresh-datadir-${version}.tar.gz`);
  } catch {
    return undefined;
  }
}

try {
  const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-socket')]);
  const cached = cacheFile();
  let db: InstanceType<typeof PGlite> | undefined;
  // Only a file this user wrote: one planted by another user of the machine is not loaded.
  if (cached && existsSync(cached) && statSync(cached).uid === process.getuid?.()) {
    try {
      db = await PGlite.create({ loadDataDir: new Blob([readFileSync(cached)]) });
    } catch {
      db = undefined;
    }
  }
  if (!db) {
    db = await PGlite.create();
    if (cached) {
      try {
        // Written whole then renamed: a run reading it never sees half a file.
        const dump = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
        mkdirSync(dirname(cached), { recursive: true });
        const partial = `${cached}.${process.pid}.partial`;
        writeFileSync(partial, dump);
        renameSync(partial, cached);
      } catch {
        // No cache: the next run starts from initdb again.
      }
    }
  }
  // Several clients at once (the kit's pool, the target's connections): the server queues their
  // queries onto the one PGlite instance.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 256 });
  await server.start();
  const conn = server.getServerConn();
  const opened = db;
  port.on('message', async (message) => {
    if (message !== 'stop') return;
    await server.stop().catch(() => undefined);
    await opened.close().catch(() => undefined);
    port.postMessage('stopped');
  });
  port.postMessage({ port: Number(conn.slice(conn.lastIndexOf(':') + 1)) });
} catch (error) {
  port.postMessage({ error: String((error as Error)?.message ?? error).split('\n')[0] });
}

import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

// The embedded Postgres, in a thread of its own: PGlite's start blocks its thread for ~2 s (initdb
// in WASM), and the main thread serves the embedded reference meanwhile. Posts { port } when the
// socket server listens, { error } when it cannot start; 'stop' closes it and posts 'stopped'.

const port = parentPort!;
// The lowest priority, for this thread alone (Linux applies setpriority(pid 0) to the calling
// thread): its start is ~2 s of CPU, and the checks that run meanwhile are timed (a schema cache
// that must still be empty 500 ms after a connection was made) and must not wait for it.
try {
  setPriority(19);
} catch {
  // Not permitted or not supported: the start just competes for the CPU.
}
try {
  const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-socket')]);
  const db = await PGlite.create();
  // Several clients at once (the kit's pool, the target's connections): the server queues their
  // queries onto the one PGlite instance.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 });
  await server.start();
  const conn = server.getServerConn();
  port.on('message', async (message) => {
    if (message !== 'stop') return;
    await server.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
    port.postMessage('stopped');
  });
  port.postMessage({ port: Number(conn.slice(conn.lastIndexOf(':') + 1)) });
} catch (error) {
  port.postMessage({ error: String((error as Error)?.message ?? error).split('\n')[0] });
}

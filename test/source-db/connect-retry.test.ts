import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunSettings } from '../../src/runner/settings.ts';
import { Redactor } from '../../src/report/redact.ts';
import { startEmbeddedSourceDb, type EmbeddedSourceDb } from '../../src/source-db/embedded.ts';

// The suite's side of the source database (sourceDb() in webhook-source.ts): a first connection
// that fails is retried until the run's bound, and a failure is never remembered for the checks
// that come after it. A flaky listener in front of a real database refuses connections on demand.

const fake: { sourceDb?: RunSettings['sourceDb']; runId: string } = { runId: 'retry1' };
vi.mock('../../src/suite/context.ts', async (original) => ({
  ...(await original<typeof import('../../src/suite/context.ts')>()),
  settings: () => fake as unknown as RunSettings,
  redactor: () => new Redactor([]),
}));
const { sourceDb, closeSourceDb } = await import('../../src/suite/webhook-source.ts');

let db: EmbeddedSourceDb;
let flaky: Server;
/** Connections the flaky listener drops before it starts handing them through. */
let refuse = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  db = await startEmbeddedSourceDb();
  await db.ready;
  const target = new URL(db.url);
  const port = Number(target.port);
  flaky = createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (refuse > 0) {
      refuse--;
      client.destroy();
      return;
    }
    const server = connect(port, '127.0.0.1');
    server.on('error', () => client.destroy());
    client.on('close', () => server.destroy());
    client.pipe(server);
    server.pipe(client);
  });
  await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
  target.port = String((flaky.address() as { port: number }).port);
  fake.sourceDb = { url: target.toString(), embedded: true, schema: 'public' };
});

afterAll(async () => {
  await closeSourceDb();
  for (const s of sockets) s.destroy();
  flaky?.close();
  await db?.close();
});

describe('sourceDb()', () => {
  it('a failure after the wait is over is the check\'s error, but not the next check\'s: it tries again', async () => {
    refuse = 1;
    fake.sourceDb!.waitUntil = 0;
    await expect(sourceDb()).rejects.toThrow(/^the source database at 127\.0\.0\.1:\d+ cannot be reached/);
    const again = await sourceDb();
    await again.ping();
    await closeSourceDb();
  });

  it('within the wait, failed connections are retried until one answers', async () => {
    refuse = 3;
    // Far enough ahead never to be reached: the retries end when the listener hands through.
    fake.sourceDb!.waitUntil = Date.now() + 10 * 60_000;
    const connected = await sourceDb();
    expect(refuse).toBe(0);
    await connected.ping();
    // Connected once: the same pool for every later check.
    expect(await sourceDb()).toBe(connected);
  });
});

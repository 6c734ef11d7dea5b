import pg from 'pg';
import { startEmbeddedSourceDb } from '../../src/source-db/embedded.ts';

// A process that starts the embedded database, prints where its files are and which process
// serves it (one JSON line), then waits to be killed: the test kills it with SIGKILL and checks
// that the server does not outlive it.

const db = await startEmbeddedSourceDb({ engine: 'postgres' });
await db.ready;
const client = new pg.Client(db.url);
await client.connect();
const dataDir = (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
await client.end();
process.stdout.write(JSON.stringify({ dataDir }) + '\n');
setInterval(() => undefined, 60_000);

// One start of the embedded source database, as a run makes it: the time until it answers, 200
// upserts through the kit's pool, and the stop. Run it under bench/footprint.ts (peak RSS of the
// process tree, the server's processes included) or /usr/bin/time (CPU of the process and the
// children it waited for):
//
//   node bench/footprint.ts --runs 3 -- node bench/embedded-db.ts postgres
//   /usr/bin/time -f '%e s wall, %U s user, %S s sys' node bench/embedded-db.ts pglite

import { startEmbeddedSourceDb } from '../src/source-db/embedded.ts';
import { SourceDb } from '../src/source-db/database.ts';
import { SOURCE_COLUMNS } from '../src/suite/webhook-columns.ts';

const engine = process.argv[2];
if (engine !== 'postgres' && engine !== 'pglite') {
  console.error('usage: node bench/embedded-db.ts postgres|pglite');
  process.exit(2);
}
const t0 = performance.now();
const lap = () => `${((performance.now() - t0) / 1000).toFixed(2)} s`;
const db = await startEmbeddedSourceDb({ engine });
await db.ready;
const ready = lap();
const source = new SourceDb(db.url, 'bench');
const table = await source.createTable('bench', 'id', SOURCE_COLUMNS);
for (let i = 0; i < 200; i++) await source.upsert(table, [{ id: `r${i}`, name: `row ${i}`, score: i, active: i % 2 === 0 }]);
const upserted = lap();
await source.close();
await db.close();
console.log(`${engine}: answered at ${ready}, 200 upserts done at ${upserted}, stopped at ${lap()}`);

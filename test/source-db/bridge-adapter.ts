import pg from 'pg';
import { referenceAdapter } from '../../src/adapters/reference-adapter.ts';
import type { AdapterContext, Row, SourceDatabase, SourceTable, TargetAdapter } from '../../src/adapters/types.ts';

// A test adapter for the source-database contract against a reference that cannot read Postgres
// yet: it plays the target's part itself. Before each run it reads the model's table from the
// kit's source database (as the target would, with the details createSourceConnection got) and
// copies the rows into a reference source. The webhook checks pass only when every value the kit
// wrote comes back with its JSON type.

export default function bridge(ctx: AdapterContext): TargetAdapter {
  const base = referenceAdapter(ctx);
  let database: SourceDatabase | undefined;
  const tables = new Map<string, SourceTable>();
  const syncSource = new Map<string, string>();
  const read = async (table: SourceTable): Promise<Row[]> => {
    const d = database!;
    const client = new pg.Client({ host: d.hostname, port: d.port, database: d.database, user: d.username, password: d.password, ssl: d.ssl });
    await client.connect();
    try {
      const res = await client.query(`SELECT * FROM "${table.schema}"."${table.name}"`);
      // bigint comes back as text (it may exceed 2^53): the column said integer.
      const ints = table.columns.filter((c) => c.types.filter((t) => t !== 'null').join() === 'integer').map((c) => c.name);
      return res.rows.map((r: Row) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, ints.includes(k) && v !== null ? Number(v) : v])) as Row);
    } finally {
      await client.end();
    }
  };
  return {
    ...base,
    name: 'test bridge (source database -> reference source)',
    createSource: undefined,
    writeRows: undefined,
    async createSourceConnection(db) {
      database = db;
      return { id: 'bridge-connection' };
    },
    async createModel({ name, connectionId, table }) {
      if (connectionId !== 'bridge-connection') throw new Error(`unexpected connection id ${connectionId}`);
      const { id } = await base.createSource!(name, table.key, table.columns);
      tables.set(id, table);
      return { id };
    },
    async createModelSync(s) {
      const sync = await base.createModelSync(s);
      syncSource.set(sync.id, s.sourceId);
      return sync;
    },
    async startRun(syncId) {
      const sourceId = syncSource.get(syncId)!;
      await base.writeRows!(sourceId, await read(tables.get(sourceId)!));
      return base.startRun(syncId);
    },
  };
}

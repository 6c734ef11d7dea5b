// The 100,000-row measure of issue 4: a source of 100k rows delivered by the reference in batches
// of 100 to the capturing receiver, each delivery verified as it arrives (streaming, nothing kept
// but ids), reporting wall time and memory. Run: node --expose-gc bench/webhook-100k.ts [rows]
import { loadAdapter } from '../src/adapters/load.ts';
import { startReceiver } from '../src/receiver/index.ts';
import { startReference } from '../src/reference/index.ts';
import { validate } from '../src/schemas.ts';

const rows = Number(process.argv[2] ?? 100_000);
const ref = await startReference({ port: 0, apiKey: 'bench-key' });
let records = 0;
let invalid = 0;
const seen = new Set<string>();
let peakHeap = 0;
const receiver = await startReceiver({
  keepInflated: false,
  onDelivery: (d) => {
    const body = d.json as { object?: { records?: Array<{ fields: { id: string } }> } } | undefined;
    if (!d.gzip || d.violations.length > 0 || validate('webhook-delivery-body.schema.json', d.json).length > 0) invalid += 1;
    for (const r of body?.object?.records ?? []) seen.add(r.fields.id);
    records += body?.object?.records?.length ?? 0;
    d.body = Buffer.alloc(0); // streaming verification: keep nothing of the payload
    d.json = undefined;
  },
});
const sample = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);

const adapter = await loadAdapter(undefined, {
  baseUrl: ref.baseUrl,
  apiKey: ref.apiKey,
  runId: 'bench',
  timeoutMs: 60_000,
  options: {},
  poll: { initialMs: 10, maxMs: 250, timeoutMs: 120_000 },
  request: async (method: string, path: string, body?: unknown) => {
    const res = await fetch(new URL(path, ref.baseUrl), {
      method,
      headers: { authorization: `Bearer ${ref.apiKey}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: await res.json(), headers: Object.fromEntries(res.headers) };
  },
});

const channel = receiver.channel('bench');
const connection = await adapter.createWebhookConnection('bench-webhook', channel.url);
// The source through the reference's test control (the built-in adapter reads a model over the
// kit's own Postgres instead; this measure is of delivery, not of reading a source).
const control = async (method: string, path: string, body: unknown) => {
  const res = await fetch(new URL(path, ref.baseUrl), { method, headers: { authorization: `Bearer ${ref.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}`);
  return (await res.json()) as { data: { id: string } };
};
const source = (await control('POST', '/_reference/sources', { name: 'bench-source', key: 'id' })).data;
for (let start = 0; start < rows; start += 10_000) {
  const chunk = Array.from({ length: Math.min(10_000, rows - start) }, (_, i) => ({ id: `r${start + i}`, email: `user${start + i}@example.com`, score: start + i, active: (start + i) % 2 === 0 }));
  await control('PUT', `/_reference/sources/${source.id}/rows`, { rows: chunk });
}
const sync = await adapter.createModelSync({
  name: 'bench-sync', connectionId: connection.id, sourceId: source.id, key: 'id', batchSize: 100, recordRequests: false,
  fields: [{ source: 'id', target: 'id' }, { source: 'email', target: 'email' }, { source: 'score', target: 'score' }, { source: 'active', target: 'active' }],
});
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
collect();
const heapBefore = process.memoryUsage().heapUsed;
const started = performance.now();
const run = await adapter.startRun(sync.id);
const outcome = await adapter.waitForRun(sync.id, run.id, 120_000);
const seconds = (performance.now() - started) / 1000;
clearInterval(sample);
const distinct = seen.size;
seen.clear();
collect();
const liveAfter = process.memoryUsage().heapUsed;
const mib = (n: number) => (n / 2 ** 20).toFixed(0);
console.log(`rows ${rows}: run ${outcome.status} in ${seconds.toFixed(2)} s; ${receiver.deliveries().length} deliveries, ${records} records, ${distinct} distinct ids, ${invalid} invalid deliveries`);
console.log(`live heap before the run ${mib(heapBefore)} MiB, after it ${mib(liveAfter)} MiB (after GC), peak during it ${mib(peakHeap)} MiB; peak RSS ${mib(process.resourceUsage().maxRSS * 1024)} MiB (reference, receiver and verifier in one process)`);
await receiver.close();
await ref.close();

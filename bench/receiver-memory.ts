// What the capturing receiver holds after N deliveries of ~25 KB of JSON each (100 records), as
// the suite starts it (keepInflated false), and after N junk requests on unknown paths.
// Live heap and buffers after GC, so only what the receiver keeps is counted.
//
//   node --expose-gc bench/receiver-memory.ts [deliveries] [junk]
import { Agent, request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { startReceiver } from '../src/receiver/index.ts';

const deliveries = Number(process.argv[2] ?? 10_000);
const junk = Number(process.argv[3] ?? 0);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const agent = new Agent({ keepAlive: true, maxSockets: 8 });
function post(url: string, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(body.length), authorization: 'Bearer bench' } }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A delivery of 100 records whose values differ, so gzip does not shrink it to nothing. */
function payload(i: number): Buffer {
  const records = Array.from({ length: 100 }, (_, j) => {
    const n = i * 100 + j;
    return { hash: (n * 2654435761).toString(16).padStart(16, '0'), fields: { id: `r${n}`, email: `user${n}@example.com`, name: `Person ${n.toString(36)}`, score: (n * 7919) % 1_000_000, active: n % 2 === 0, note: `note ${n} ${(n * 31).toString(36)} lorem ipsum dolor sit amet` } };
  });
  return gzipSync(JSON.stringify({ event: 'sync.records', object: { id: 'bench-sync', name: 'bench sync', records, metadata: null } }));
}

const measure = (): { heap: number; buffers: number } => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
};

const receiver = await startReceiver({ keepInflated: false });
const ch = receiver.channel('bench');
const sample = payload(0);
const before = measure();
const started = performance.now();
for (let i = 0; i < deliveries; i += 8) await Promise.all(Array.from({ length: Math.min(8, deliveries - i) }, (_, k) => post(ch.url, payload(i + k))));
for (let i = 0; i < junk; i += 8) await Promise.all(Array.from({ length: Math.min(8, junk - i) }, (_, k) => post(`${receiver.localUrl}/junk/${i + k}`, Buffer.alloc(100, 0x61))));
const seconds = (performance.now() - started) / 1000;
const after = measure();
const mib = (n: number) => (n / 2 ** 20).toFixed(1);
const listed = receiver.deliveries();
console.log(`${deliveries} deliveries (${sample.length} B gzip each, ~${(JSON.stringify(receiver.deliveries()[0]?.json ?? null).length / 1024).toFixed(0)} KB of JSON), ${junk} junk requests in ${seconds.toFixed(1)} s; ${listed.length} listed, ${listed.filter((d) => d.dropped).length} bodies dropped`);
console.log(`kept by the receiver (after GC): heap +${mib(after.heap - before.heap)} MiB, buffers +${mib(after.buffers - before.buffers)} MiB, total +${mib(after.heap + after.buffers - before.heap - before.buffers)} MiB`);
agent.destroy();
await receiver.close();

// CPU of inflating the reference's gzip bomb (src/reference/faults/deliveries.ts: 1,024 gzip
// members of 1 MiB of zeros) up to the receiver's 64 MiB cap, with zlib's default output chunk
// and with the chunk src/inflate-chunk.ts gives it.
//
//   node bench/inflate-chunk.ts [--times 5]
import { parseArgs } from 'node:util';
import { gunzip, gzipSync } from 'node:zlib';
import { inflateChunkSize } from '../src/inflate-chunk.ts';

const { values } = parseArgs({ options: { times: { type: 'string' } } });
const times = Number(values.times ?? 5);
const member = gzipSync(Buffer.alloc(1 << 20));
const bomb = Buffer.concat(Array.from({ length: 1024 }, () => member));
const cap = 64 << 20;
const inflate = (chunkSize?: number) =>
  new Promise<void>((resolve) => gunzip(bomb, { maxOutputLength: cap, ...(chunkSize ? { chunkSize } : {}) }, () => resolve()));

for (const [label, chunk] of [['default (16 KiB)', undefined], [`inflateChunkSize (${inflateChunkSize(bomb.length) >> 10} KiB)`, inflateChunkSize(bomb.length)], ['default (16 KiB)', undefined], [`inflateChunkSize (${inflateChunkSize(bomb.length) >> 10} KiB)`, inflateChunkSize(bomb.length)]] as const) {
  const cpu = process.cpuUsage();
  for (let i = 0; i < times; i++) await inflate(chunk);
  const used = process.cpuUsage(cpu);
  console.log(`${label}: ${((used.user + used.system) / 1000 / times).toFixed(0)} ms of CPU a bomb (${(used.system / 1000 / times).toFixed(0)} ms system)`);
}

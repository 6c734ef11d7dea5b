/**
 * zlib's output chunk for a body: 4× its compressed size, between zlib's default 16 KiB and 1 MiB.
 * With the default, a gzip bomb stopped at a 64 MiB cap is 4,096 hand-offs from zlib's thread and
 * ~0.3 s of CPU; with 1 MiB chunks ~40 ms (measured). Not 1 MiB for every body: an answer that
 * fits one chunk is a view of it, so a small delivery would keep a whole chunk's memory.
 */
export const inflateChunkSize = (compressed: number): number => Math.min(1 << 20, Math.max(16 << 10, compressed * 4));

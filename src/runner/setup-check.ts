import { createServer } from 'node:net';
import { UsageError } from '../cli-errors.ts';
import { loadAdapter } from '../adapters/load.ts';
import { pollSettings } from '../adapters/options.ts';
import type { RunSettings } from './settings.ts';

/**
 * Setup that can be known broken before any request: an adapter that cannot be made, a receiver
 * that cannot listen, a public URL that is not one. Each is exit 2 with one line, never a run in
 * which every webhook check quietly skips.
 */
export async function checkSetup(s: RunSettings): Promise<void> {
  if (s.receiver.publicUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(s.receiver.publicUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`--receiver-public-url must be an http(s) URL, got ${JSON.stringify(s.receiver.publicUrl)}`);
  }
  await canListen(s.receiver.host, s.receiver.port);
  if (s.adapterPath) await canMakeAdapter(s);
}

async function canListen(host: string, port: number): Promise<void> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'address already in use' : code === 'EACCES' ? 'permission denied' : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? 'no such local address' : code ?? (error as Error).message;
    throw new UsageError(`--receiver-host ${host} --receiver-port ${port}: the capturing receiver cannot listen there (${why})`);
  } finally {
    if (server.listening) await new Promise((r) => server.close(r));
  }
}

/** The factory is called with a context whose request() refuses: making an adapter must not need the network. */
async function canMakeAdapter(s: RunSettings): Promise<void> {
  try {
    await loadAdapter(s.adapterPath, {
      baseUrl: s.baseUrl,
      apiKey: s.apiKey,
      runId: s.runId,
      timeoutMs: s.timeoutMs,
      options: s.adapterOptions ?? {},
      poll: pollSettings(s.profile),
      request: () => Promise.reject(new Error('adapters may not send requests while they are made')),
    }, s.profile.adapter?.declarative);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--adapter ${s.adapterPath}: the factory threw: ${(error as Error).message?.split('\n')[0] ?? String(error)}`);
  }
}

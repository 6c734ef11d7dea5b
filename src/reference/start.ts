import type { AddressInfo } from 'node:net';
import { createReference } from './build.ts';
import type { ReferenceOptions } from './config.ts';
import type { Store } from './store.ts';
import type { SignedLogFiles } from './log-files.ts';

export interface RunningReference {
  /** e.g. http://127.0.0.1:41234, without a trailing slash; paths begin with /api. */
  baseUrl: string;
  apiKey: string;
  orgKey: string;
  close(): Promise<void>;
  store: Store;
  /** With captureLog 'signed-urls': the log files' storage (its count of requests that carried credentials). */
  logFiles?: SignedLogFiles;
}

export const DEFAULT_HOST = '127.0.0.1';

/** Starts the reference on host:port (port 0, the default, picks a free one). Rejects with the listen error, e.g. EADDRINUSE. */
export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  const reference = createReference(options);
  const { app } = reference;
  try {
    await app.listen({ host: options.host ?? DEFAULT_HOST, port: options.port ?? 0 });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    baseUrl: `http://${host}:${address.port}`,
    apiKey: reference.apiKey,
    orgKey: reference.orgKey,
    store: reference.store,
    ...(reference.logFiles ? { logFiles: reference.logFiles } : {}),
    close: async () => {
      await app.close();
    },
  };
}

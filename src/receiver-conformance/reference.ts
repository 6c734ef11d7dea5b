import { randomBytes } from 'node:crypto';
import { UsageError } from '../cli-errors.ts';
import { didYouMean } from '../cli-flags.ts';
import type { ReceiverTarget } from './registry.ts';
import type { ReceiverSettings } from './receiver-settings.ts';

// The reference receiver (src/reference-receiver/, the default target without --url), started
// with a random secret that is never printed, and the fault or variant asked for.

interface ReferenceModule {
  startReferenceReceiver(o: { secret: string; fault?: string; variant?: string; maxAgeSeconds?: number; host?: string; port?: number; slowMs?: number }): Promise<{ url: string; inspectUrl: string; close(): Promise<void> }>;
  receiverFaultCatalogue(): Array<{ name: string; breaks: string[]; description: string }>;
  receiverBenignCatalogue(): Array<{ name: string; description: string }>;
}

export async function referenceReceiverModule(): Promise<ReferenceModule> {
  try {
    // Named at run time: a checkout runs the .ts, the package the compiled .js.
    const file = new URL(`../reference-receiver/index${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
    return (await import(file.href)) as ReferenceModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') throw new UsageError('this build has no reference receiver: give the receiver under test with --url');
    throw error;
  }
}

export interface StartedReference {
  target: ReceiverTarget;
  /** ` with fault NAME`, ` with variant NAME`, or ''. */
  label: string;
  close(): Promise<void>;
}

export async function startReferenceIfNeeded(s: ReceiverSettings): Promise<StartedReference | undefined> {
  if (s.target) return undefined;
  const mod = await referenceReceiverModule();
  const check = (kind: string, name: string | undefined, known: string[]) => {
    if (name !== undefined && !known.includes(name)) throw new UsageError(`--${kind}: unknown receiver ${kind} '${name}' (${didYouMean(name, known)}known: ${known.join(', ')})`);
  };
  check('fault', s.fault, mod.receiverFaultCatalogue().map((f) => f.name));
  check('variant', s.variant, mod.receiverBenignCatalogue().map((v) => v.name));
  const secret = s.secret ?? randomBytes(24).toString('base64url');
  // A slow fault answers late, but before the checks stop waiting (3x the bound): RCV-010 fails, the rest still judge.
  const slowMs = Math.round(1.5 * s.responseTimeoutMs);
  const running = await mod.startReferenceReceiver({ secret, maxAgeSeconds: s.maxAgeSeconds, host: '127.0.0.1', port: 0, slowMs, ...(s.fault ? { fault: s.fault } : {}), ...(s.variant ? { variant: s.variant } : {}) });
  return {
    target: { url: running.url, secret, inspectUrl: running.inspectUrl, maxAgeSeconds: s.maxAgeSeconds, responseTimeoutMs: s.responseTimeoutMs },
    label: s.fault ? ` with fault ${s.fault}` : s.variant ? ` with variant ${s.variant}` : '',
    close: () => running.close(),
  };
}

import { UsageError } from '../cli-errors.ts';
import { receiverBenignVariants } from './benign.ts';
import type { ReceiverDeviation } from './catalogue.ts';
import { receiverFaults as firstFaults } from './faults.ts';
import { receiverFaultsRound2 } from './faults-round2.ts';
import { listen } from './server.ts';
import { conformingSteps } from './steps.ts';

// The reference webhook receiver: the default target of `dss-conformance receiver`, a small
// receiver that does what the spec asks of the receiving end of a delivery (src/reference/README.md
// › The reference receiver), with named faults and benign variants that prove the receiver checks.

export interface ReferenceReceiverOptions {
  secret: string;
  fault?: string;
  variant?: string;
  /** The timestamp tolerance, both ways (default 300: "a few minutes"). */
  maxAgeSeconds?: number;
  host?: string;
  port?: number;
  /**
   * The answer bound the receiver is judged by (RCV-010; default 10000): the slow faults hold an
   * answer back 1.5 times this, later than the bound yet within the 3 times it the checks wait.
   */
  responseTimeoutMs?: number;
  /** How long the slow faults hold an answer, when not 1.5 times responseTimeoutMs. */
  slowMs?: number;
}

export interface RunningReceiver {
  url: string;
  inspectUrl: string;
  close(): Promise<void>;
}

const receiverFaults: readonly ReceiverDeviation[] = [...firstFaults, ...receiverFaultsRound2];

export const DEFAULT_MAX_AGE_SECONDS = 300;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 10_000;

function find(list: readonly ReceiverDeviation[], name: string, what: string): ReceiverDeviation {
  const found = list.find((d) => d.name === name);
  if (!found) throw new UsageError(`unknown receiver ${what} "${name}"; known: ${list.map((d) => d.name).join(', ')}`);
  return found;
}

export async function startReferenceReceiver(opts: ReferenceReceiverOptions): Promise<RunningReceiver> {
  if (!opts.secret) throw new UsageError('the reference receiver needs a non-empty secret');
  const steps = conformingSteps();
  const context = { slowMs: opts.slowMs ?? 1.5 * (opts.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS) };
  if (opts.fault) find(receiverFaults, opts.fault, 'fault').apply(steps, context);
  if (opts.variant) find(receiverBenignVariants, opts.variant, 'variant').apply(steps, context);
  const { url, inspectUrl, close } = await listen({
    secret: opts.secret,
    maxAgeSeconds: opts.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS,
    steps,
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? 0,
  });
  return { url, inspectUrl, close };
}

export function receiverFaultCatalogue(): { name: string; breaks: string[]; description: string }[] {
  return receiverFaults.map(({ name, breaks, description }) => ({ name, breaks: [...breaks], description }));
}

export function receiverBenignCatalogue(): { name: string; description: string }[] {
  return receiverBenignVariants.map(({ name, description }) => ({ name, description }));
}

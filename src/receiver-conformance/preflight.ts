import { UnreachableError } from '../cli-errors.ts';
import { buildDelivery } from '../deliveries/build.ts';
import { redactUserinfo } from '../runner/replay.ts';
import { explainTransport } from '../runner/target-url.ts';
import { WAIT_FACTOR } from './context.ts';
import { NoAnswer, type Sender } from './http.ts';
import type { ReceiverTarget } from './registry.ts';

/**
 * Before any check: one well-formed delivery, to tell a receiver that cannot be judged at all (not
 * listening, not HTTP, silent for three times the response bound) from one that answers wrongly,
 * which is for the checks. Any HTTP answer will do here, whatever its status.
 */
export async function preflight(sender: Sender, target: ReceiverTarget): Promise<void> {
  const where = redactUserinfo(target.url);
  try {
    await sender.post(target.url, buildDelivery({ secret: target.secret, records: [{ dssc_preflight: true, at: Date.now() }] }), WAIT_FACTOR * target.responseTimeoutMs);
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error;
    const why = error.kind === 'timeout' ? `gave no answer within ${WAIT_FACTOR * target.responseTimeoutMs} ms (3x --response-timeout-ms)` : error.kind === 'refused' ? 'refused the connection: is it listening?' : error.kind === 'dns' ? 'has a host name that does not resolve' : error.kind === 'not-http' ? 'answered something that is not HTTP' : error.message;
    throw new UnreachableError(explainTransport(target.url, error.message) ?? `the receiver at ${where} ${why}`);
  }
}

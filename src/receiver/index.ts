/**
 * Capturing webhook receiver for sync.records deliveries (Spec › Events).
 *
 *   const receiver = await startReceiver();
 *   const ch = receiver.channel('model-sync-basic');   // give ch.url to the webhook connection
 *   ch.script([200, 200, 500]);                        // optional: fail the third delivery
 *   const ds = await ch.waitFor((ds) => ds.length >= 3, { timeoutMs: 60_000, quietMs: 2_000 });
 *   await receiver.close();
 */
export { startReceiver } from './receiver.ts';
export { describeDelivery } from './describe.ts';
export type {
  Channel,
  Delivery,
  Receiver,
  ReceiverOptions,
  ScriptedResponse,
  SuccessBody,
  WaitForOptions,
} from './types.ts';

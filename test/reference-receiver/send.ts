import { request } from 'undici';
import { buildDelivery, type BuildDeliveryOptions } from '../../src/deliveries/build.ts';

// Sends one delivery of the kit's builder (src/deliveries/build.ts) to a receiver, for tests of the
// receiver itself; its answer as status and text.

export async function send(url: string, o: Partial<BuildDeliveryOptions> & { secret: string }): Promise<{ status: number; body: string }> {
  const { headers, body } = buildDelivery({ records: [{ id: 'r' }], timestamp: new Date(Date.now() - 10_000), ...o });
  const answer = await request(url, { method: 'POST', headers: Object.fromEntries(Object.entries(headers).filter(([n]) => n.toLowerCase() !== 'host')), body });
  return { status: answer.statusCode, body: await answer.body.text() };
}

export async function processed(inspectUrl: string): Promise<string[]> {
  const answer = await request(inspectUrl);
  return ((await answer.body.json()) as { processed: string[] }).processed;
}

import { EXIT, parseIntFlag, UnreachableError, UsageError } from '../cli-errors.ts';
import { parseFlags } from '../cli-flags.ts';
import { buildDelivery, type Fields } from '../deliveries/build.ts';
import { Redactor } from '../report/redact.ts';
import { consoleSafe } from '../report/safe-text.ts';
import { redactUserinfo } from '../runner/replay.ts';
import { explainTransport, parseHttpUrl } from '../runner/target-url.ts';
import { createSender, excerpt, NoAnswer } from './http.ts';
import { checkHeaderSafe, SECRET_VARIABLE } from './receiver-settings.ts';

const HELP = `usage: dss-conformance send --url URL --secret S [--records N] [--batch-size B] [--metadata k=v]... [--event NAME]

Sends sample sync.records deliveries of the spec's shape (gzip body, Authorization: Bearer <secret>,
a fresh Service-Signature-Timestamp) to a webhook receiver and prints each answer: its status, how
long it took and the start of its body. The tool to run while writing a receiver.

  --url URL            the receiver
  --secret S           its bearer secret (or ${SECRET_VARIABLE}); never printed
  --records N          records in all (default 3), split into deliveries of --batch-size
  --batch-size B       records per delivery (default 100, the spec's default)
  --metadata k=v       a pair under object.metadata (repeatable; default: no metadata)
  --event NAME         the event type (default sync.records; another name tries an unknown event)
  --timeout-ms N       how long to wait for each answer (default 10000)
  -h, --help           this text

exit codes: 0 every delivery was answered 200; 1 some answer was not 200; 2 usage error;
3 the receiver is unreachable, not HTTP, or gave no answer in time.`;

const FLAGS = {
  url: { type: 'string' },
  secret: { type: 'string' },
  records: { type: 'string' },
  'batch-size': { type: 'string' },
  metadata: { type: 'string', multiple: true },
  event: { type: 'string' },
  'timeout-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Sample values of every JSON type, so a receiver sees what a real sync sends. */
function sampleRecord(n: number): Fields {
  return { id: n, email: `user${n}@example.com`, name: n % 2 ? 'Zoë Ørsted' : 'Ada Lovelace', score: n * 1.5, active: n % 2 === 0, plan: null, tags: ['sample', `n${n}`], address: { city: 'Berlin', zip: '10115' } };
}

export async function sendCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags('send', argv, FLAGS, { numeric: (f) => (['records', 'batch-size', 'timeout-ms'].includes(f) ? 'must be a number of at least 1' : undefined) });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  // Known before the flags are checked: a line about a bad flag may quote the secret.
  const redactor = new Redactor([values.secret, process.env[SECRET_VARIABLE]]);
  try {
    return await send(values, redactor);
  } catch (error) {
    if (error instanceof Error) error.message = redactor.text(error.message);
    throw error;
  }
}

async function send(values: { [K in keyof typeof FLAGS]?: (typeof FLAGS)[K] extends { multiple: true } ? string[] : (typeof FLAGS)[K] extends { type: 'boolean' } ? boolean : string }, redactor: Redactor): Promise<number> {
  if (!values.url) throw new UsageError(`send needs --url (see 'dss-conformance send --help')`);
  const { secrets: urlSecrets } = parseHttpUrl('--url', values.url);
  const secret = values.secret ?? (process.env[SECRET_VARIABLE] || undefined);
  if (!secret || secret.trim() === '') throw new UsageError(`send needs --secret (or ${SECRET_VARIABLE})`);
  checkHeaderSafe(secret);
  const total = parseIntFlag('records', values.records, 1, 1_000_000) ?? 3;
  const batch = parseIntFlag('batch-size', values['batch-size'], 1, 100_000) ?? 100;
  const timeoutMs = parseIntFlag('timeout-ms', values['timeout-ms'], 1, 600_000) ?? 10_000;
  const metadata: Record<string, string> = {};
  for (const pair of values.metadata ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--metadata must be KEY=VALUE, got ${JSON.stringify(pair)}`);
    metadata[pair.slice(0, at)] = pair.slice(at + 1);
  }
  if (values.event !== undefined && values.event === '') throw new UsageError('--event is empty');
  for (const s of [secret, ...urlSecrets]) redactor.add(s);
  const out = (line: string) => process.stdout.write(consoleSafe(redactor.text(line)) + '\n');
  const sender = createSender();
  const deliveries = Math.ceil(total / batch);
  out(`dss-conformance: sending ${total} record${total === 1 ? '' : 's'} in ${deliveries} deliver${deliveries === 1 ? 'y' : 'ies'} to ${redactUserinfo(values.url)}`);
  let allOk = true;
  try {
    for (let i = 0; i < deliveries; i++) {
      const from = i * batch;
      const records = Array.from({ length: Math.min(batch, total - from) }, (_, k) => sampleRecord(from + k + 1));
      const delivery = buildDelivery({ secret, records, ...(values.metadata ? { metadata } : {}), ...(values.event ? { event: values.event } : {}), syncId: 'dssc-send', syncName: 'dss-conformance send' });
      try {
        const answer = await sender.post(values.url, delivery, timeoutMs);
        if (answer.status !== 200) allOk = false;
        out(`#${i + 1} ${records.length} records, ${delivery.body.length} bytes gzip -> ${answer.status} in ${answer.ms} ms ${excerpt(answer.body)}`);
      } catch (error) {
        if (!(error instanceof NoAnswer)) throw error;
        const line = explainTransport(values.url, error.message) ?? `the receiver at ${redactUserinfo(values.url)}: ${error.message}`;
        throw new UnreachableError(redactor.text(`delivery #${i + 1}: ${line}`));
      }
    }
  } finally {
    await sender.close();
  }
  return allOk ? EXIT.ok : EXIT.checkFailed;
}

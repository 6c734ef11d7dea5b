import { DEFAULT_BATCH_SIZE, hashOfFields, type DeliveryPipeline, type Fields } from '../delivery.ts';
import type { Fault } from './fault.ts';

// Second faults for the webhook requirements, each of another mechanism than the first: what a
// run decides to send (change detection blind to one column or to JSON types), the hash field by
// field, and rules honoured on the first run or batch only. Applied through config.delivery.

function wrapStep<K extends keyof DeliveryPipeline>(pipeline: DeliveryPipeline, name: K, wrap: (original: DeliveryPipeline[K]) => DeliveryPipeline[K]): void {
  pipeline[name] = wrap(pipeline[name]);
}

function without(fields: Fields, name: string): Fields {
  const { [name]: _left, ...rest } = fields;
  return rest;
}

/** Every value as its String(): 1 and "1", true and "true" become one value. */
function stringified(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
}

/**
 * Change detection by another digest than the delivered hash: a record is pending when the
 * digest of its fields differs from the digest of what was last delivered for its key. The
 * records still carry the right hash, so only what a run sends is wrong.
 */
function detectChangesBy(pipeline: DeliveryPipeline, digest: (fields: Fields) => string): void {
  const digests = new Map<string, string>();
  wrapStep(pipeline, 'hashRecord', (hashRecord) => (fields) => {
    const hash = hashRecord(fields);
    digests.set(hash, digest(fields));
    return hash;
  });
  wrapStep(pipeline, 'isPending', (isPending) => (hash, last, mode) => isPending(digests.get(hash) ?? hash, last === undefined ? undefined : (digests.get(last) ?? last), mode));
}

function editHeadersOf(pipeline: DeliveryPipeline, edit: (headers: Record<string, string>, batch: Parameters<DeliveryPipeline['buildHeaders']>[0]) => void): void {
  wrapStep(pipeline, 'buildHeaders', (build) => (batch) => {
    const headers = build(batch);
    edit(headers, batch);
    return headers;
  });
}

export const deliveryDataFaults: Fault[] = [
  {
    name: 'differential-ignores-email',
    breaks: ['WH-017'],
    description: 'Change detection leaves the email field out: a later run does not deliver a row whose only change is its email (the delivered hash is right).',
    apply: ({ config }) => detectChangesBy(config.delivery, (fields) => hashOfFields(without(fields, 'email'))),
  },
  {
    name: 'differential-type-blind',
    breaks: ['WH-017'],
    description: 'Change detection compares String(value): a later run does not deliver a row whose only change is a JSON type (1 to "1", false to "false"; the delivered hash is right).',
    apply: ({ config }) => detectChangesBy(config.delivery, (fields) => hashOfFields(stringified(fields))),
  },
  {
    name: 'hash-ignores-active',
    // WH-017 too: change detection compares hashes, so a row whose only change is `active` is not sent.
    breaks: ['WH-013', 'WH-017'],
    description: 'The record hash leaves the active field out: records equal but for active share a hash (and a change of active alone is not seen).',
    apply: ({ config }) => wrapStep(config.delivery, 'hashRecord', (hashRecord) => (fields) => hashRecord(without(fields, 'active'))),
  },
  {
    name: 'hash-type-blind',
    breaks: ['WH-013'],
    description: 'The delivered hash is taken over String(value) of each field, so 1 and "1", true and "true" hash alike (change detection still uses the right hash).',
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
        const payload = build(batch);
        const records = payload.object.records.map((r) => ({ ...r, hash: hashOfFields(stringified(r.fields)) }));
        return { ...payload, object: { ...payload.object, records } };
      }),
  },
  {
    name: 'delivery-method-put-later-runs',
    breaks: ['WH-001'],
    description: "A sync's first run delivers with POST; its later runs with PUT.",
    apply: ({ config }) => {
      // sendBatch does not know the run; the headers built for a later run's batch mark its request.
      const later = new WeakSet<object>();
      editHeadersOf(config.delivery, (headers, batch) => {
        if (batch.run.ordinal > 1) later.add(headers);
      });
      wrapStep(config.delivery, 'sendBatch', (send) => (request, transport) => send(later.has(request.headers) ? { ...request, method: 'PUT' } : request, transport));
    },
  },
  {
    name: 'delivery-url-path-appended',
    breaks: ['WH-001'],
    description: "Deliveries are POSTed to the webhook connection's URL with a path segment appended (<url>sync.records).",
    apply: ({ config }) => wrapStep(config.delivery, 'sendBatch', (send) => (request, transport) => send({ ...request, url: `${request.url}sync.records` }, transport)),
  },
  {
    name: 'delivery-timestamp-epoch',
    breaks: ['WH-006'],
    description: 'Service-Signature-Timestamp is written as seconds since the epoch (1795320000), not as an ISO 8601 timestamp.',
    apply: ({ config }) => editHeadersOf(config.delivery, (headers) => (headers['Service-Signature-Timestamp'] = String(Math.floor(Date.parse(headers['Service-Signature-Timestamp']!) / 1000)))),
  },
  {
    name: 'delivery-timestamp-naive',
    breaks: ['WH-006'],
    description:
      'Service-Signature-Timestamp is the UTC time with no zone designator, to the microsecond (2026-11-25T21:09:07.473000, as a naive datetime\'s isoformat() writes it): ISO 8601 reads that as local time, not UTC.',
    apply: ({ config }) => editHeadersOf(config.delivery, (headers) => (headers['Service-Signature-Timestamp'] = headers['Service-Signature-Timestamp']!.replace(/Z$/, '000'))),
  },
  {
    name: 'delivery-host-without-port',
    breaks: ['WH-023'],
    description: "The Host header names the receiver's host without its (non-default) port.",
    apply: ({ config }) => editHeadersOf(config.delivery, (headers, batch) => (headers.Host = new URL(String(batch.connection.configuration.url)).hostname)),
  },
  {
    name: 'delivery-user-agent-name-and-comment',
    breaks: ['WH-009'],
    description: 'User-Agent is the service name and a comment, with no release label: "DSS-Reference (+https://example.com/dss-reference)".',
    apply: ({ config }) => editHeadersOf(config.delivery, (headers) => (headers['User-Agent'] = 'DSS-Reference (+https://example.com/dss-reference)')),
  },
  {
    name: 'delivery-user-agent-http-library',
    // Caught only because the reference profile declares the product name (webhooks.productName).
    breaks: ['WH-009'],
    description: "Deliveries carry an HTTP library's default User-Agent, \"Go-http-client/1.1\": a product and a release label, but not the service's name.",
    apply: ({ config }) => editHeadersOf(config.delivery, (headers) => (headers['User-Agent'] = 'Go-http-client/1.1')),
  },
  {
    name: 'delivery-object-name-cut-255',
    breaks: ['WH-011'],
    description: 'object.name is cut to its first 255 characters (a varchar(255) column): a longer sync name arrives short.',
    apply: ({ config }) => wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
      const payload = build(batch);
      return { ...payload, object: { ...payload.object, name: payload.object.name.slice(0, 255) } };
    }),
  },
  {
    name: 'delivery-object-name-latin1',
    breaks: ['WH-011'],
    description: 'object.name is the UTF-8 bytes of the sync name read as Latin-1: a non-ASCII name arrives garbled ("Zürich" as "ZÃ¼rich"); an ASCII name is right.',
    apply: ({ config }) => wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
      const payload = build(batch);
      return { ...payload, object: { ...payload.object, name: Buffer.from(payload.object.name, 'utf8').toString('latin1') } };
    }),
  },
  {
    name: 'metadata-first-batch-only',
    breaks: ['WH-014'],
    description: "object.metadata holds the sync's Metadata in the first batch of a run only; later batches carry null.",
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
        const payload = build(batch);
        return batch.index === 1 ? payload : { ...payload, object: { ...payload.object, metadata: null } };
      }),
  },
  {
    name: 'metadata-values-typed',
    breaks: ['WH-014'],
    description: 'Metadata values that look like a number or a boolean ("1", "true") are delivered as that number or boolean.',
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
        const payload = build(batch);
        const metadata = payload.object.metadata;
        if (!metadata) return payload;
        const typed = Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, v === 'true' ? true : v === 'false' ? false : /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v]));
        return { ...payload, object: { ...payload.object, metadata: typed as Record<string, string> } };
      }),
  },
  {
    name: 'batch-size-override-ignored',
    breaks: ['WH-015'],
    description: "The sync's batch size setting is ignored: every delivery holds up to the default 100 records.",
    apply: ({ config }) => wrapStep(config.delivery, 'batchSize', () => () => DEFAULT_BATCH_SIZE),
  },
  {
    name: 'full-sync-first-later-run-only',
    breaks: ['WH-018'],
    description: "With full sync on, a sync's first two runs deliver every row; from its third run on only differences.",
    apply: ({ config }) => wrapStep(config.delivery, 'deliveryMode', (mode) => (sync, run) => (mode(sync, run) === 'all' && run.ordinal > 2 ? 'changes' : mode(sync, run))),
  },
  {
    name: 'full-sync-drops-last-of-many',
    breaks: ['WH-018'],
    description: "With full sync on, a run of 3 or more batches never sends its last one (it is marked delivered and not logged); a run of one or two batches is whole.",
    apply: ({ config }) => dropBatches(config.delivery, ({ sync, run, index, last }) => last && index >= 3 && config.delivery.deliveryMode(sync, run) === 'all'),
  },
  {
    name: 'skip-backfill-later-runs-first-batch-only',
    breaks: ['WH-019'],
    description: 'With skip backfill on, a later run sends only its first batch; the others are marked delivered and not logged (a later run of one batch is whole).',
    apply: ({ config }) => dropBatches(config.delivery, ({ sync, run, index }) => sync.skip_initial_backfill && run.ordinal > 1 && index > 1),
  },
];

/** Batches `drop` picks are never sent: answered 200 in place of the receiver, marked delivered, not logged. */
function dropBatches(pipeline: DeliveryPipeline, drop: (batch: Parameters<DeliveryPipeline['buildHeaders']>[0]) => boolean): void {
  const dropped = new WeakSet<object>();
  editHeadersOf(pipeline, (headers, batch) => {
    if (drop(batch)) dropped.add(headers);
  });
  wrapStep(pipeline, 'sendBatch', (send) => async (request, transport) => (dropped.has(request.headers) ? { status: 200, body: '' } : send(request, transport)));
  wrapStep(pipeline, 'capture', (capture) => (log, exchange) => {
    if (!dropped.has(exchange.request.headers)) capture(log, exchange);
  });
}

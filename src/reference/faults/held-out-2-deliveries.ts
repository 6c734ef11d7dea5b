import { gzipSync } from 'node:zlib';
import { DEFAULT_BATCH_SIZE, hashOfFields, type BatchContext, type DeliveryPipeline, type DeliveryRequest, type Fields } from '../delivery.ts';
import type { ModelSync, RowKey, Value } from '../store.ts';
import { wrapStore, type Fault } from './fault.ts';

/**
 * Held-out round 2, the delivery wire (issue: held-out hunt round 2): faults a vendor could ship
 * in the sync.records requests themselves, written from the spec alone before the suite was read.
 * Most show only under one value of an input: a later batch, the last batch, a second run, a
 * second sync or connection, a long or non-ASCII value, one status of the receiver's answer.
 */

const editHeaders = (p: DeliveryPipeline, edit: (headers: Record<string, string>, batch: BatchContext & { secret: string; body: Uint8Array }) => void) => {
  const build = p.buildHeaders;
  p.buildHeaders = (batch) => {
    const headers = build(batch);
    edit(headers, batch);
    return headers;
  };
};

const editPayload = (p: DeliveryPipeline, edit: (body: ReturnType<DeliveryPipeline['buildPayload']>, batch: BatchContext) => void) => {
  const build = p.buildPayload;
  p.buildPayload = (batch) => {
    const body = build(batch);
    edit(body, batch);
    return body;
  };
};

const editRequest = (p: DeliveryPipeline, edit: (request: DeliveryRequest) => void) => {
  const send = p.sendBatch;
  p.sendBatch = (request, transport) => {
    edit(request);
    return send(request, transport);
  };
};

const mapStrings = (fields: Fields, map: (value: string) => Value): Fields => Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, typeof value === 'string' ? map(value) : value]));

/** The batch is a partial one that follows full ones: the tail of a multi-batch run. */
const isTailBatch = (batch: BatchContext, p: DeliveryPipeline) => batch.index > 1 && batch.last && batch.records.length < p.batchSize(batch.sync);

export const heldOut2DeliveryFaults: readonly Fault[] = [
  // --- Headers (Spec › Events › Delivery request; Authentication 5) ---
  {
    name: 'ho2-ts-no-zone-later-batches',
    breaks: [],
    description: "Batches after a run's first carry Service-Signature-Timestamp without its zone designator (no 'Z'), breaking 'ISO 8601 UTC timestamp'.",
    apply({ config }) {
      editHeaders(config.delivery, (headers, { index }) => {
        if (index > 1) headers['Service-Signature-Timestamp'] = headers['Service-Signature-Timestamp']!.replace(/Z$/, '');
      });
    },
  },
  {
    name: 'ho2-ts-frozen-per-sync',
    breaks: [],
    description: "Service-Signature-Timestamp is taken at a sync's first delivery and reused on every later request of that sync, breaking 'timestamp of when the request was created'.",
    apply({ config }) {
      const first = new Map<string, string>();
      editHeaders(config.delivery, (headers, { sync }) => {
        if (!first.has(sync.id)) first.set(sync.id, headers['Service-Signature-Timestamp']!);
        headers['Service-Signature-Timestamp'] = first.get(sync.id)!;
      });
    },
  },
  {
    name: 'ho2-tail-batch-no-timestamp',
    breaks: [],
    description: 'The partial last batch of a multi-batch run (a separate flush path) is sent without Service-Signature-Timestamp, a header the spec lists for every delivery request.',
    apply({ config }) {
      const p = config.delivery;
      editHeaders(p, (headers, batch) => {
        if (isTailBatch(batch, p)) delete headers['Service-Signature-Timestamp'];
      });
    },
  },
  {
    name: 'ho2-auth-first-connection-secret',
    breaks: [],
    description: "Every delivery carries the secret of the first webhook connection that delivered (a process-wide cache), so a second connection's receiver gets another connection's secret, breaking 'Bearer <WEBHOOK_SECRET> ... the secret generated when the webhook connection was created'.",
    apply({ config }) {
      let first: string | undefined;
      editHeaders(config.delivery, (headers, { secret }) => {
        first ??= secret;
        headers.Authorization = `Bearer ${first}`;
      });
    },
  },
  {
    name: 'ho2-auth-secret-truncated-32',
    breaks: [],
    description: "The bearer secret is cut to its first 32 characters (a column limit), breaking 'Authorization: Bearer <WEBHOOK_SECRET>' for the generated secret.",
    apply({ config }) {
      editHeaders(config.delivery, (headers, { secret }) => {
        headers.Authorization = `Bearer ${secret.slice(0, 32)}`;
      });
    },
  },
  {
    name: 'ho2-auth-first-batch-only',
    breaks: [],
    description: "Only a run's first batch carries Authorization (the header is consumed by the first request), breaking 'Webhook deliveries from the service carry Authorization: Bearer <WEBHOOK_SECRET>'.",
    apply({ config }) {
      editHeaders(config.delivery, (headers, { index }) => {
        if (index > 1) delete headers.Authorization;
      });
    },
  },
  {
    name: 'ho2-body-latin1',
    breaks: [],
    description: "The JSON text is encoded as Latin-1 instead of UTF-8, so non-ASCII values arrive as other characters, breaking 'Content-Type application/json' (JSON is UTF-8) and the delivered field values.",
    apply({ config }) {
      config.delivery.encodeBody = (json) => gzipSync(Buffer.from(json, 'latin1'));
    },
  },
  {
    name: 'ho2-ua-library-later-batches',
    breaks: [],
    description: "Batches after a run's first go out with the HTTP library's User-Agent 'undici', breaking 'User-Agent: Service name followed by a release label'.",
    apply({ config }) {
      editHeaders(config.delivery, (headers, { index }) => {
        if (index > 1) headers['User-Agent'] = 'undici';
      });
    },
  },
  {
    name: 'ho2-url-query-dropped',
    breaks: [],
    description: "The query string of the configured URL is dropped (the URL is rebuilt from host and path), breaking 'Method POST to the URL configured in the webhook connection'.",
    apply({ config }) {
      editRequest(config.delivery, (request) => {
        const url = new URL(request.url);
        url.search = '';
        request.url = url.toString();
      });
    },
  },
  {
    name: 'ho2-url-path-lowercased',
    breaks: [],
    description: "The configured URL's path is lowercased (a URL normalizer), so a receiver path with capitals is missed, breaking 'POST to the URL configured in the webhook connection'.",
    apply({ config }) {
      editRequest(config.delivery, (request) => {
        const url = new URL(request.url);
        url.pathname = url.pathname.toLowerCase();
        request.url = url.toString();
      });
    },
  },

  // --- Envelope (Spec › Events › Body: object.id, object.name, object.metadata) ---
  {
    name: 'ho2-full-sync-object-id-is-run',
    breaks: [],
    description: "Runs that send everything (sync_all_records, resync) put the run's id in object.id, breaking 'object.id: Id of the sync the delivery is for'.",
    apply({ config }) {
      editPayload(config.delivery, (body, { sync, run }) => {
        if (sync.sync_all_records || run.resync) body.object.id = run.id;
      });
    },
  },
  {
    name: 'ho2-name-ascii-folded',
    breaks: [],
    description: "object.name is folded to ASCII (accents and other non-ASCII characters dropped), breaking 'object.name: Name of the sync as configured'.",
    apply({ config }) {
      editPayload(config.delivery, (body) => {
        body.object.name = body.object.name.normalize('NFKD').replace(/[^\x20-\x7e]/g, '');
      });
    },
  },
  {
    name: 'ho2-metadata-first-5-pairs',
    breaks: [],
    description: "Only the first 5 metadata pairs are sent, breaking 'Fixed pairs added to every payload under object.metadata' for a longer Metadata setting.",
    apply({ config }) {
      editPayload(config.delivery, (body) => {
        const m = body.object.metadata;
        if (m) body.object.metadata = Object.fromEntries(Object.entries(m).slice(0, 5));
      });
    },
  },

  // --- Record values (Spec › Events › Body: records[].fields, records[].hash) ---
  {
    name: 'ho2-long-string-cut-255',
    breaks: [],
    description: "String values longer than 255 characters are cut to 255 (a VARCHAR staging column), breaking 'fields: One entry per field selected for delivery' with the source's value.",
    apply({ config }) {
      const p = config.delivery;
      const select = p.selectFields;
      p.selectFields = (row, selection) => mapStrings(select(row, selection), (v) => (v.length > 255 ? v.slice(0, 255) : v));
    },
  },
  {
    name: 'ho2-astral-replaced',
    breaks: [],
    description: 'Characters outside the Basic Multilingual Plane (emoji) in values become U+FFFD (a 3-byte UTF-8 store), so the delivered value differs from the source.',
    apply({ config }) {
      const p = config.delivery;
      const select = p.selectFields;
      p.selectFields = (row, selection) => mapStrings(select(row, selection), (v) => v.replace(/[\u{10000}-\u{10FFFF}]/gu, '\uFFFD'));
    },
  },
  {
    name: 'ho2-boolean-as-string',
    breaks: [],
    description: "Boolean values are delivered as the strings 'true'/'false', breaking 'value types come from the sync's field selection'.",
    apply({ config }) {
      editPayload(config.delivery, (body) => {
        for (const record of body.object.records) {
          record.fields = Object.fromEntries(Object.entries(record.fields).map(([k, v]) => [k, typeof v === 'boolean' ? String(v) : v]));
        }
      });
    },
  },
  {
    name: 'ho2-float32-values',
    breaks: [],
    description: "Non-integer numbers pass through a 32-bit float (0.1 arrives as 0.10000000149011612), so the delivered value differs from the source's.",
    apply({ config }) {
      editPayload(config.delivery, (body) => {
        for (const record of body.object.records) {
          record.fields = Object.fromEntries(Object.entries(record.fields).map(([k, v]) => [k, typeof v === 'number' && !Number.isInteger(v) ? Math.fround(v) : v]));
        }
      });
    },
  },
  {
    name: 'ho2-null-fields-omitted',
    breaks: [],
    description: "Fields whose value is null are left out of fields, breaking 'One entry per field selected for delivery'.",
    apply({ config }) {
      editPayload(config.delivery, (body) => {
        for (const record of body.object.records) record.fields = Object.fromEntries(Object.entries(record.fields).filter(([, v]) => v !== null));
      });
    },
  },
  {
    name: 'ho2-update-sends-changed-fields-only',
    breaks: [],
    description: "A record already delivered before is sent with only the fields that changed (a patch), breaking 'One entry per field selected for delivery'.",
    apply({ config }) {
      const lastFields = new WeakMap<ModelSync, Map<RowKey, Fields>>();
      const p = config.delivery;
      const build = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = build(batch);
        const seen = lastFields.get(batch.sync) ?? new Map<RowKey, Fields>();
        lastFields.set(batch.sync, seen);
        batch.records.forEach((record, i) => {
          const before = seen.get(record.key);
          if (before) body.object.records[i]!.fields = Object.fromEntries(Object.entries(record.fields).filter(([k, v]) => JSON.stringify(before[k]) !== JSON.stringify(v)));
          seen.set(record.key, record.fields);
        });
        return body;
      };
    },
  },
  {
    name: 'ho2-hash-first-3-fields',
    breaks: [],
    description: "The record hash covers only the first 3 selected fields, so a change to a 4th or later field neither changes the hash nor is delivered, breaking 'hash of the record's field key/value pairs' and 'only new or changed rows are delivered'.",
    apply({ config }) {
      config.delivery.hashRecord = (fields) => hashOfFields(Object.fromEntries(Object.entries(fields).slice(0, 3)));
    },
  },
  {
    name: 'ho2-hash-case-insensitive',
    breaks: [],
    description: "The record hash lowercases string values (a case-insensitive collation), so a row whose value changes only in letter case is not delivered again, breaking 'only new or changed rows are delivered'.",
    apply({ config }) {
      config.delivery.hashRecord = (fields) => hashOfFields(mapStrings(fields, (v) => v.toLowerCase()));
    },
  },
  {
    name: 'ho2-state-shared-per-connection',
    breaks: [],
    description: "The differential state (hash last delivered per row) is kept per destination connection, so a second sync to the same connection skips rows the first one delivered and unsettles the first one's, breaking 'The first run delivers everything in the source'.",
    apply({ store }) {
      wrapStore(store, 'addModelSync', (add) => (input) => {
        const sync = add(input);
        const earlier = [...store.modelSyncs.values()].find((s) => s !== sync && s.target.connection_id === sync.target.connection_id);
        if (earlier) sync.deliveredHashes = earlier.deliveredHashes;
        return sync;
      });
    },
  },
  {
    name: 'ho2-string-keys-always-resent',
    breaks: [],
    description: "Rows whose key is a string (not a number) get no differential state, so they are delivered again on every run, breaking 'only new or changed rows are delivered after the first run'.",
    apply({ store }) {
      wrapStore(store, 'addModelSync', (add) => (input) => {
        const sync = add(input);
        const set = sync.deliveredHashes.set.bind(sync.deliveredHashes);
        sync.deliveredHashes.set = (key, value) => (typeof key === 'string' ? sync.deliveredHashes : set(key, value));
        return sync;
      });
    },
  },

  // --- Batching (Spec › Events › Emission 1; Webhook settings: batch size) ---
  {
    name: 'ho2-batch-size-first-run-only',
    breaks: [],
    description: "The configured batch size applies to a sync's first run only; later runs use the default 100, breaking 'Records per delivered payload' for the sync's setting.",
    apply({ config }) {
      const p = config.delivery;
      const size = p.batchSize;
      p.batchSize = (sync) => (sync.executions.length > 1 ? DEFAULT_BATCH_SIZE : size(sync));
    },
  },
  {
    name: 'ho2-tail-batch-drops-last-record',
    breaks: [],
    description: 'The partial last batch of a multi-batch run loses its final record (an off-by-one in the flush), which is still counted as delivered and never sent again.',
    apply({ config }) {
      const p = config.delivery;
      editPayload(p, (body, batch) => {
        if (isTailBatch(batch, p)) body.object.records.pop();
      });
    },
  },

  // --- The receiver's answer (Spec › Events › Emission and receiver response 2-3) ---
  {
    name: 'ho2-429-ignored',
    breaks: [],
    description: "A 429 answer is taken as 'try later' and then dropped: the sync completes, breaking 'Any 4xx or 5xx answer from the receiver makes the sync appear as failed'.",
    apply({ config }) {
      const p = config.delivery;
      const isFailure = p.isFailure;
      p.isFailure = (status) => status !== 429 && isFailure(status);
    },
  },
  {
    name: 'ho2-200-non-json-answer-fails',
    breaks: [],
    description: "A 200 answer whose body is not JSON (e.g. 'OK') is taken as a failed delivery and fails the sync, breaking 'The receiver answers 200 OK on success'.",
    apply({ config }) {
      const p = config.delivery;
      const send = p.sendBatch;
      p.sendBatch = async (request, transport) => {
        const outcome = await send(request, transport);
        if ('status' in outcome && outcome.status === 200 && outcome.body.trim() !== '') {
          try {
            JSON.parse(outcome.body);
          } catch {
            return { error: "the receiver's answer is not JSON" };
          }
        }
        return outcome;
      };
    },
  },
];

import { gzipSync } from 'node:zlib';
import { DEFAULT_BATCH_SIZE, hashOfFields, type Fields } from '../delivery.ts';
import type { ModelSync, RowKey } from '../store.ts';
import { wrapStore, type Fault } from './fault.ts';
import { editHeaders, editPayload, editRequest, isTailBatch, mapStrings } from './held-out-2-deliveries.ts';

/**
 * The held-out round-2 delivery faults (held-out-2-deliveries.ts) that the suite caught before any
 * change to it: kept outside the catalogue (each would cost the fault matrix a run and prove
 * nothing new). `breaks` is what a whole run at seed 20261122 failed under each. To measure the
 * suite's power on them again, spread heldOut2DeliveryCaught into FAULTS (src/reference/faults.ts)
 * for the measurement only.
 */
export const heldOut2DeliveryCaught: readonly Fault[] = [
  // --- Headers (Spec › Events › Delivery request; Authentication 5) ---
  {
    name: 'ho2-ts-no-zone-later-batches',
    breaks: ['WH-006'],
    description: "Batches after a run's first carry Service-Signature-Timestamp without its zone designator (no 'Z'), breaking 'ISO 8601 UTC timestamp'.",
    apply({ config }) {
      editHeaders(config.delivery, (headers, { index }) => {
        if (index > 1) headers['Service-Signature-Timestamp'] = headers['Service-Signature-Timestamp']!.replace(/Z$/, '');
      });
    },
  },
  {
    name: 'ho2-tail-batch-no-timestamp',
    breaks: ['WH-006'],
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
    breaks: ['WH-008'],
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
    breaks: ['WH-008'],
    description: "The bearer secret is cut to its first 32 characters (a column limit), breaking 'Authorization: Bearer <WEBHOOK_SECRET>' for the generated secret.",
    apply({ config }) {
      editHeaders(config.delivery, (headers, { secret }) => {
        headers.Authorization = `Bearer ${secret.slice(0, 32)}`;
      });
    },
  },
  {
    name: 'ho2-auth-first-batch-only',
    breaks: ['WH-008'],
    description: "Only a run's first batch carries Authorization (the header is consumed by the first request), breaking 'Webhook deliveries from the service carry Authorization: Bearer <WEBHOOK_SECRET>'.",
    apply({ config }) {
      editHeaders(config.delivery, (headers, { index }) => {
        if (index > 1) delete headers.Authorization;
      });
    },
  },
  {
    name: 'ho2-body-latin1',
    breaks: ['WH-010', 'WH-016', 'WH-017'],
    description: "The JSON text is encoded as Latin-1 instead of UTF-8, so non-ASCII values arrive as other characters, breaking 'Content-Type application/json' (JSON is UTF-8) and the delivered field values.",
    apply({ config }) {
      config.delivery.encodeBody = (json) => gzipSync(Buffer.from(json, 'latin1'));
    },
  },
  {
    name: 'ho2-ua-library-later-batches',
    breaks: ['WH-009'],
    description: "Batches after a run's first go out with the HTTP library's User-Agent 'undici', breaking 'User-Agent: Service name followed by a release label'.",
    apply({ config }) {
      editHeaders(config.delivery, (headers, { index }) => {
        if (index > 1) headers['User-Agent'] = 'undici';
      });
    },
  },
  {
    name: 'ho2-url-path-lowercased',
    breaks: ['WH-001', 'WH-002', 'WH-003', 'WH-004', 'WH-005', 'WH-006', 'WH-007', 'WH-008', 'WH-009', 'WH-010', 'WH-011', 'WH-012', 'WH-013', 'WH-014', 'WH-015', 'WH-016', 'WH-017', 'WH-018', 'WH-019', 'WH-020', 'WH-021', 'WH-022', 'WH-023'],
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
    breaks: ['WH-011'],
    description: "Runs that send everything (sync_all_records, resync) put the run's id in object.id, breaking 'object.id: Id of the sync the delivery is for'.",
    apply({ config }) {
      editPayload(config.delivery, (body, { sync, run }) => {
        if (sync.sync_all_records || run.resync) body.object.id = run.id;
      });
    },
  },
  {
    name: 'ho2-name-ascii-folded',
    breaks: ['WH-011'],
    description: "object.name is folded to ASCII (accents and other non-ASCII characters dropped), breaking 'object.name: Name of the sync as configured'.",
    apply({ config }) {
      editPayload(config.delivery, (body) => {
        body.object.name = body.object.name.normalize('NFKD').replace(/[^\x20-\x7e]/g, '');
      });
    },
  },
  // --- Record values (Spec › Events › Body: records[].fields, records[].hash) ---
  {
    name: 'ho2-astral-replaced',
    breaks: ['WH-012'],
    description: 'Characters outside the Basic Multilingual Plane (emoji) in values become U+FFFD (a 3-byte UTF-8 store), so the delivered value differs from the source.',
    apply({ config }) {
      const p = config.delivery;
      const select = p.selectFields;
      p.selectFields = (row, selection) => mapStrings(select(row, selection), (v) => v.replace(/[\u{10000}-\u{10FFFF}]/gu, '\uFFFD'));
    },
  },
  {
    name: 'ho2-boolean-as-string',
    breaks: ['WH-012', 'WH-013'],
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
    name: 'ho2-null-fields-omitted',
    breaks: ['WH-012'],
    description: "Fields whose value is null are left out of fields, breaking 'One entry per field selected for delivery'.",
    apply({ config }) {
      editPayload(config.delivery, (body) => {
        for (const record of body.object.records) record.fields = Object.fromEntries(Object.entries(record.fields).filter(([, v]) => v !== null));
      });
    },
  },
  {
    name: 'ho2-update-sends-changed-fields-only',
    breaks: ['WH-012', 'WH-016', 'WH-017', 'WH-018'],
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
    breaks: ['WH-013', 'WH-017'],
    description: "The record hash covers only the first 3 selected fields, so a change to a 4th or later field neither changes the hash nor is delivered, breaking 'hash of the record's field key/value pairs' and 'only new or changed rows are delivered'.",
    apply({ config }) {
      config.delivery.hashRecord = (fields) => hashOfFields(Object.fromEntries(Object.entries(fields).slice(0, 3)));
    },
  },
  {
    name: 'ho2-hash-case-insensitive',
    breaks: ['WH-013'],
    description: "The record hash lowercases string values (a case-insensitive collation), so a row whose value changes only in letter case is not delivered again, breaking 'only new or changed rows are delivered'.",
    apply({ config }) {
      config.delivery.hashRecord = (fields) => hashOfFields(mapStrings(fields, (v) => v.toLowerCase()));
    },
  },
  {
    name: 'ho2-string-keys-always-resent',
    breaks: ['WH-017', 'WH-019'],
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
    breaks: ['WH-015'],
    description: "The configured batch size applies to a sync's first run only; later runs use the default 100, breaking 'Records per delivered payload' for the sync's setting.",
    apply({ config }) {
      const p = config.delivery;
      const size = p.batchSize;
      p.batchSize = (sync) => (sync.executions.length > 1 ? DEFAULT_BATCH_SIZE : size(sync));
    },
  },
  {
    name: 'ho2-tail-batch-drops-last-record',
    breaks: ['WH-016', 'WH-017', 'WH-019'],
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
    breaks: ['WH-020'],
    description: "A 429 answer is taken as 'try later' and then dropped: the sync completes, breaking 'Any 4xx or 5xx answer from the receiver makes the sync appear as failed'.",
    apply({ config }) {
      const p = config.delivery;
      const isFailure = p.isFailure;
      p.isFailure = (status) => status !== 429 && isFailure(status);
    },
  },
];

import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { BatchContext, DeliveryPipeline, Fields } from '../delivery.ts';
import { DEFAULT_BATCH_SIZE } from '../delivery.ts';
import type { SyncExecution } from '../store.ts';
import type { Fault } from './fault.ts';

// Held-out webhook faults (issue 18): bugs an implementer might really make in deliveries,
// written from the spec alone before the catalogue was read, to measure how many the suite
// catches. Each is wrong on one value of one dimension only (one mode, the last batch, a
// batch size of 1, the 3rd+ batch, one answer code of a class, a second run...). This file
// holds the delivery-pipeline ones; held-out-webhook-runs.ts the ones on runs and their log.

/** The batch each body was built for, so that steps which see only the request know it. */
export function batchOfBody(p: DeliveryPipeline): WeakMap<object, BatchContext> {
  const batches = new WeakMap<object, BatchContext>();
  const buildHeaders = p.buildHeaders;
  p.buildHeaders = (batch) => {
    batches.set(batch.body, batch);
    return buildHeaders(batch);
  };
  return batches;
}

/** Rewrites the headers of the batches `when` picks. */
type HeaderInput = Parameters<DeliveryPipeline['buildHeaders']>[0];

function editHeaders(p: DeliveryPipeline, when: (b: HeaderInput) => boolean, edit: (h: Record<string, string>, b: HeaderInput) => void): void {
  const buildHeaders = p.buildHeaders;
  p.buildHeaders = (batch) => {
    const headers = buildHeaders(batch);
    if (when(batch)) edit(headers, batch);
    return headers;
  };
}

const lastOfSeveral = (b: BatchContext) => b.last && b.index > 1;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

export const heldOutDeliveryFaults: readonly Fault[] = [
  {
    name: 'ho-batch-size-one-means-default',
    breaks: ['WH-015'],
    description: 'A batch size of 1 is taken for "unset" (a truthiness slip on size > 1): such a sync gets batches of 100.',
    apply: ({ config: { delivery: p } }) => {
      const batchSize = p.batchSize;
      p.batchSize = (sync) => (sync.target.configuration?.batch_size === 1 ? DEFAULT_BATCH_SIZE : batchSize(sync));
    },
  },
  {
    name: 'ho-batch-size-large-off-by-one',
    breaks: ['WH-015'],
    description: 'A configured batch size above the default goes through a "large batch" path with an off-by-one: batches of size + 1.',
    apply: ({ config: { delivery: p } }) => {
      const batchSize = p.batchSize;
      p.batchSize = (sync) => {
        const size = batchSize(sync);
        return size > DEFAULT_BATCH_SIZE ? size + 1 : size;
      };
    },
  },
  {
    name: 'ho-third-batch-repeats-previous-last',
    breaks: ['WH-016'],
    description: "From the 3rd batch on, a batch with room left starts with the previous batch's last record again (a cursor off by one).",
    apply: ({ config: { delivery: p } }) => {
      const lastRecord = new WeakMap<SyncExecution, { hash: string; fields: Fields }>();
      const buildPayload = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = buildPayload(batch);
        const previous = lastRecord.get(batch.run);
        const last = body.object.records.at(-1);
        if (last) lastRecord.set(batch.run, last);
        if (previous && batch.index >= 3 && batch.records.length < p.batchSize(batch.sync)) body.object.records.unshift(previous);
        return body;
      };
    },
  },
  {
    name: 'ho-batch-boundary-skips-row',
    breaks: ['WH-016'],
    description: 'From the 2nd batch on, the first record of each batch is left out of the payload (yet counted delivered).',
    apply: ({ config: { delivery: p } }) => {
      const buildPayload = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = buildPayload(batch);
        if (batch.index >= 2) body.object.records.shift();
        return body;
      };
    },
  },
  {
    name: 'ho-timestamp-no-zone-later-batches',
    breaks: ['WH-006'],
    description: "From the 2nd batch on, Service-Signature-Timestamp is 'YYYY-MM-DD HH:MM:SS' (a str(datetime) slip: no T, no zone).",
    apply: ({ config: { delivery: p } }) =>
      editHeaders(p, (b) => b.index >= 2, (h) => {
        h['Service-Signature-Timestamp'] = new Date().toISOString().slice(0, 19).replace('T', ' ');
      }),
  },
  {
    name: 'ho-timestamps-descend',
    breaks: ['WH-007'],
    description: 'Requests are stamped as if built last-first: batch n carries now - n s, so stamps go backwards within a run (all fresh).',
    apply: ({ config: { delivery: p } }) =>
      editHeaders(p, () => true, (h, b) => {
        h['Service-Signature-Timestamp'] = new Date(Date.now() - b.index * 1000).toISOString();
      }),
  },
  {
    name: 'ho-secret-changed-from-second-run',
    breaks: ['WH-008'],
    description: 'From the 2nd run of a sync on, the Bearer value is a re-derived secret, not the one returned at creation.',
    apply: ({ config: { delivery: p } }) =>
      editHeaders(p, (b) => b.run.ordinal >= 2, (h, b) => {
        h.Authorization = `Bearer ${sha(String(b.connection.configuration.secret)).slice(0, 43)}`;
      }),
  },
  {
    name: 'ho-user-agent-missing-on-last-batch',
    breaks: ['WH-009'],
    description: 'The last batch of a run of several goes out through a flush path that sets no User-Agent.',
    apply: ({ config: { delivery: p } }) => editHeaders(p, lastOfSeveral, (h) => delete h['User-Agent']),
  },
  {
    name: 'ho-accept-encoding-first-batch-only',
    breaks: ['WH-004'],
    description: 'Accept-Encoding is set on the first batch of a run only (a per-connection default consumed once).',
    apply: ({ config: { delivery: p } }) => editHeaders(p, (b) => b.index >= 2, (h) => delete h['Accept-Encoding']),
  },
  {
    name: 'ho-content-type-missing-single-record',
    breaks: ['WH-003'],
    description: 'A batch of exactly one record goes out through a single-record path without Content-Type.',
    apply: ({ config: { delivery: p } }) => editHeaders(p, (b) => b.records.length === 1, (h) => delete h['Content-Type']),
  },
  {
    name: 'ho-host-without-port-later-batches',
    breaks: ['WH-023'],
    description: 'From the 2nd batch on, Host is the bare host name (the port dropped).',
    apply: ({ config: { delivery: p } }) =>
      editHeaders(p, (b) => b.index >= 2, (h, b) => {
        h.Host = new URL(String(b.connection.configuration.url)).hostname;
      }),
  },
  {
    name: 'ho-gzip-skipped-small-bodies',
    breaks: ['WH-002'],
    description: 'Bodies under 512 bytes are sent uncompressed (and without Content-Encoding): "not worth compressing".',
    apply: ({ config: { delivery: p } }) => {
      const encodeBody = p.encodeBody;
      p.encodeBody = (json) => (Buffer.byteLength(json) < 512 ? new Uint8Array(Buffer.from(json)) : encodeBody(json));
      editHeaders(p, (b) => b.body[0] !== 0x1f, (h) => delete h['Content-Encoding']);
    },
  },
  {
    name: 'ho-body-latin1',
    breaks: ['WH-012'],
    description: 'The JSON text is turned into bytes as latin1: non-ASCII characters of values and names arrive mangled.',
    apply: ({ config: { delivery: p } }) => {
      p.encodeBody = (json) => gzipSync(Buffer.from(json, 'latin1'));
    },
  },
  {
    name: 'ho-metadata-first-batch-only',
    breaks: ['WH-014'],
    description: 'object.metadata is filled on the first batch of a run only; later batches carry null.',
    apply: ({ config: { delivery: p } }) => {
      const buildPayload = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = buildPayload(batch);
        if (batch.index >= 2) body.object.metadata = null;
        return body;
      };
    },
  },
  {
    name: 'ho-metadata-keys-lowercased',
    breaks: ['WH-014'],
    description: 'Metadata keys are lowercased on the way to the payload (a header-style normalisation).',
    apply: ({ config: { delivery: p } }) => {
      const buildPayload = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = buildPayload(batch);
        const m = body.object.metadata;
        if (m) body.object.metadata = Object.fromEntries(Object.entries(m).map(([k, v]) => [k.toLowerCase(), v]));
        return body;
      };
    },
  },
  {
    name: 'ho-sync-name-truncated-64',
    breaks: ['WH-011'],
    description: 'object.name is cut to 64 characters (a column width of the vendor).',
    apply: ({ config: { delivery: p } }) => {
      const buildPayload = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = buildPayload(batch);
        body.object.name = body.object.name.slice(0, 64);
        return body;
      };
    },
  },
  {
    name: 'ho-sync-name-non-ascii-stripped',
    breaks: ['WH-011'],
    description: 'object.name loses its non-ASCII characters.',
    apply: ({ config: { delivery: p } }) => {
      const buildPayload = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = buildPayload(batch);
        body.object.name = body.object.name.replace(/[^\x20-\x7e]/g, '');
        return body;
      };
    },
  },
  {
    name: 'ho-shared-connection-first-sync-id',
    breaks: ['WH-011'],
    description: 'object.id comes from a cache keyed by the webhook connection: a 2nd sync to the same connection delivers under the 1st sync\'s id.',
    apply: ({ config: { delivery: p } }) => {
      const firstSync = new Map<string, string>();
      const buildPayload = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = buildPayload(batch);
        if (!firstSync.has(batch.connection.id)) firstSync.set(batch.connection.id, batch.sync.id);
        body.object.id = firstSync.get(batch.connection.id)!;
        return body;
      };
    },
  },
  {
    name: 'ho-field-names-lowercased',
    breaks: ['WH-012'],
    description: 'Target field names are lowercased (a normalisation the spec does not ask for).',
    apply: ({ config: { delivery: p } }) => {
      const selectFields = p.selectFields;
      p.selectFields = (row, selection) => Object.fromEntries(Object.entries(selectFields(row, selection)).map(([k, v]) => [k.toLowerCase(), v]));
    },
  },
  {
    name: 'ho-null-fields-omitted',
    breaks: ['WH-012'],
    description: 'Fields whose value is null are left out of the record (an omit-empty serializer).',
    apply: ({ config: { delivery: p } }) => {
      const selectFields = p.selectFields;
      p.selectFields = (row, selection) => Object.fromEntries(Object.entries(selectFields(row, selection)).filter(([, v]) => v !== null));
    },
  },
  {
    name: 'ho-same-column-one-target',
    breaks: ['WH-012'],
    description: 'A source column selected under two target names is delivered under the last of them only (selection keyed by column).',
    apply: ({ config: { delivery: p } }) => {
      const selectFields = p.selectFields;
      p.selectFields = (row, selection) => {
        const byColumn = new Map(selection.map((s) => [s.field ?? `\0${s.target}`, s]));
        return selectFields(row, [...byColumn.values()]);
      };
    },
  },
  {
    name: 'ho-hash-number-string-collide',
    breaks: ['WH-013'],
    description: 'The hash stringifies every value first: 1 and "1", true and "true", null and "null" hash alike.',
    apply: ({ config: { delivery: p } }) => {
      const hashRecord = p.hashRecord;
      p.hashRecord = (fields) => hashRecord(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, typeof v === 'object' && v !== null ? v : String(v)])));
    },
  },
  {
    name: 'ho-hash-selection-order',
    breaks: ['WH-013'],
    description: 'The hash is sha256 of JSON.stringify(fields) in selection order: the same pairs selected in another order hash apart.',
    apply: ({ config: { delivery: p } }) => {
      p.hashRecord = (fields) => sha(JSON.stringify(fields));
    },
  },
];

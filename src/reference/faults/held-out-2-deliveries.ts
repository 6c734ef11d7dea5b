import { type BatchContext, type DeliveryPipeline, type DeliveryRequest, type Fields } from '../delivery.ts';
import type { Value } from '../store.ts';
import { wrapStore, type Fault } from './fault.ts';

/**
 * Held-out round 2, the delivery wire: faults a vendor could ship in the sync.records requests
 * themselves, written from the spec alone before the suite was read. Most show only under one
 * value of an input: a later batch, the last batch, a second run, a second sync or connection, a
 * long value, one shape of the receiver's answer. These seven the suite missed at first (README ›
 * Faults); the twenty it caught at once are in held-out-2-deliveries-caught.ts, outside FAULTS.
 */

export const editHeaders = (p: DeliveryPipeline, edit: (headers: Record<string, string>, batch: BatchContext & { secret: string; body: Uint8Array }) => void) => {
  const build = p.buildHeaders;
  p.buildHeaders = (batch) => {
    const headers = build(batch);
    edit(headers, batch);
    return headers;
  };
};

export const editPayload = (p: DeliveryPipeline, edit: (body: ReturnType<DeliveryPipeline['buildPayload']>, batch: BatchContext) => void) => {
  const build = p.buildPayload;
  p.buildPayload = (batch) => {
    const body = build(batch);
    edit(body, batch);
    return body;
  };
};

export const editRequest = (p: DeliveryPipeline, edit: (request: DeliveryRequest) => void) => {
  const send = p.sendBatch;
  p.sendBatch = (request, transport) => {
    edit(request);
    return send(request, transport);
  };
};

export const mapStrings = (fields: Fields, map: (value: string) => Value): Fields => Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, typeof value === 'string' ? map(value) : value]));

/** The batch is a partial one that follows full ones: the tail of a multi-batch run. */
export const isTailBatch = (batch: BatchContext, p: DeliveryPipeline) => batch.index > 1 && batch.last && batch.records.length < p.batchSize(batch.sync);

export const heldOut2DeliveryFaults: readonly Fault[] = [
  // --- Headers (Spec › Events › Delivery request; Authentication 5) ---
  {
    name: 'ho2-ts-frozen-per-sync',
    breaks: ['WH-007'],
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
    name: 'ho2-url-query-dropped',
    breaks: ['WH-001'],
    description: "The query string of the configured URL is dropped (the URL is rebuilt from host and path), breaking 'Method POST to the URL configured in the webhook connection'.",
    apply({ config }) {
      editRequest(config.delivery, (request) => {
        const url = new URL(request.url);
        url.search = '';
        request.url = url.toString();
      });
    },
  },
  // --- Envelope (Spec › Events › Body: object.id, object.name, object.metadata) ---
  {
    name: 'ho2-metadata-first-5-pairs',
    breaks: ['WH-014'],
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
    name: 'ho2-long-text-cut-64k',
    breaks: ['WH-012'],
    description: "String values longer than 65,535 characters are cut to 65,535 (a TEXT staging column); values up to that length, the 256- and 1,001-character ones among them, are delivered whole: only field-value's 70,000-character value shows it.",
    apply({ config }) {
      const p = config.delivery;
      const select = p.selectFields;
      p.selectFields = (row, selection) => mapStrings(select(row, selection), (v) => (v.length > 65_535 ? v.slice(0, 65_535) : v));
    },
  },
  {
    name: 'ho2-long-string-cut-255',
    breaks: ['WH-012'],
    description: "String values longer than 255 characters are cut to 255 (a VARCHAR staging column), breaking 'fields: One entry per field selected for delivery' with the source's value.",
    apply({ config }) {
      const p = config.delivery;
      const select = p.selectFields;
      p.selectFields = (row, selection) => mapStrings(select(row, selection), (v) => (v.length > 255 ? v.slice(0, 255) : v));
    },
  },
  {
    name: 'ho2-float32-values',
    breaks: ['WH-012'],
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
    name: 'ho2-state-shared-per-connection',
    breaks: ['WH-017'],
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
  // --- The receiver's answer (Spec › Events › Emission and receiver response 2-3) ---
  {
    name: 'ho2-200-non-json-answer-fails',
    breaks: ['WH-015', 'WH-016'],
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

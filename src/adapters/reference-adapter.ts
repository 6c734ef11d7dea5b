import { outcomeOf, pollRun, startRunWaitingOutConflict } from './run-polling.ts';
import type { AdapterContext, CapturedExchange, RunOutcome, TargetAdapter } from './types.ts';

// Drives the reference, and any target shaped like the real service: webhook connections and model
// syncs through the service API (POST /api/connections, /api/syncs, /api/syncs/{id}/executions),
// sources through the reference's own test-control endpoints under /_reference/ (not service API).
// Runs: a 409 at the start is waited out, and the run is polled with backoff until it ends
// (run-polling.ts), as the real service needs.

function data(res: { status: number; json: unknown }, what: string): Record<string, unknown> {
  const d = (res.json as { data?: unknown } | undefined)?.data;
  if (res.status < 200 || res.status >= 300 || !d || typeof d !== 'object') throw new Error(`${what} answered ${res.status}`);
  return d as Record<string, unknown>;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${what} is missing from the answer`);
  return value;
}

/**
 * The run's `requests` as the suite compares them: null (capture off, or none kept) is an empty
 * log; a run without the field has no observable log. Each entry keeps its request and the
 * response's status, or the error that stood for it.
 */
function capturedOf(run: Record<string, unknown>): CapturedExchange[] | null {
  if (!('requests' in run)) return null;
  const entries: unknown[] = Array.isArray(run.requests) ? run.requests : [];
  return entries.map((e) => {
    const { request, response } = (e ?? {}) as { request?: unknown; response?: { status?: unknown; error?: unknown } | null };
    const answer =
      typeof response?.status === 'number' ? { status: response.status } : typeof response?.error === 'string' ? { error: response.error } : null;
    return { request: request ?? null, response: answer };
  });
}

export function referenceAdapter(ctx: AdapterContext): TargetAdapter {
  const syncPath = (syncId: string) => `/api/syncs/${encodeURIComponent(syncId)}`;
  return {
    name: 'built-in (reference shape)',

    async createWebhookConnection(name, url) {
      const d = data(await ctx.request('POST', '/api/connections', { name, type: 'webhook', configuration: { url } }), 'creating a webhook connection');
      return { id: text(d.id, 'data.id'), secret: text((d.configuration as Record<string, unknown> | undefined)?.secret, 'data.configuration.secret') };
    },

    async createSource(name, key, columns) {
      // The reference's sources hold any JSON scalar; the columns are sent for targets that use them.
      const d = data(await ctx.request('POST', '/_reference/sources', { name, key, ...(columns ? { columns } : {}) }), 'creating a source');
      return { id: text(d.id, 'data.id') };
    },

    async writeRows(sourceId, rows) {
      data(await ctx.request('PUT', `/_reference/sources/${encodeURIComponent(sourceId)}/rows`, { rows }), 'writing source rows');
    },

    async createModelSync(s) {
      const configuration: Record<string, unknown> = {};
      if (s.batchSize !== undefined) configuration.batch_size = s.batchSize;
      if (s.metadata !== undefined) configuration.metadata = s.metadata;
      if (s.recordRequests !== undefined) configuration.record_requests = s.recordRequests;
      const key = s.key ?? 'id';
      // The real service: a webhook sync is updateOrCreate into object 'http', keyed by an identity, run by hand.
      const body = {
        name: s.name,
        mode: 'updateOrCreate',
        target: { connection_id: s.connectionId, object: 'http', configuration },
        fields: s.fields.map((f) => ({ source: { model_id: s.sourceId, field: f.source }, target: f.target })),
        identity: { source: { model_id: s.sourceId, field: key }, target: s.fields.find((f) => f.source === key)?.target ?? key, function: 'Equality' },
        ...(s.syncAllRecords !== undefined ? { sync_all_records: s.syncAllRecords } : {}),
        ...(s.skipInitialBackfill !== undefined ? { skip_initial_backfill: s.skipInitialBackfill } : {}),
        schedule: { frequency: 'manual' },
      };
      const d = data(await ctx.request('POST', '/api/syncs', body), 'creating a model sync');
      return { id: text(d.id, 'data.id'), name: typeof d.name === 'string' ? d.name : s.name };
    },

    async startRun(syncId) {
      const d = await startRunWaitingOutConflict(() => ctx.request('POST', `${syncPath(syncId)}/executions`, {}), ctx.poll, syncId);
      return { id: text(d.id, 'data.id') };
    },

    async waitForRun(syncId, runId, timeoutMs): Promise<RunOutcome> {
      const poll = { ...ctx.poll, timeoutMs };
      const run = await pollRun(() => ctx.request('GET', `${syncPath(syncId)}/executions/${encodeURIComponent(runId)}`), poll, runId);
      return outcomeOf(run, capturedOf(run));
    },
  };
}

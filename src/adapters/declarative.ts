import { idFromLocation } from '../client/location-id.ts';
import { atPointer } from '../profile/profile.ts';
import type { DeclarativeRequest, DeclarativeSpec, Method } from './declarative-spec.ts';
import { pollRun, startRunWaitingOutConflict, successOf } from './run-polling.ts';
import { interpolate, render, type Variables } from './template.ts';
import type { AdapterContext, AdapterResponse, CapturedExchange, RunOutcome, TargetAdapter } from './types.ts';
import { captureLogOf, exchangeOf } from './capture-log.ts';
import { Redactor } from '../report/redact.ts';

// An adapter that is only configuration: the profile's adapter.declarative says, per operation,
// which request to send and where in the answer the id (secret, status, ...) is. A target shaped
// like the real service needs no code; the built-in adapter is this one with the reference
// profile's section. Templates were checked when the profile was loaded (declarative-spec.ts).

/** An id as the target gives it: a non-empty string, or a number (kept as its text); else the one Location names, if given. */
function idAt(json: unknown, pointer: string, what: string, located?: string): string {
  const value = atPointer(json, pointer);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if ((typeof value !== 'string' || value === '') && located !== undefined) return located;
  if (typeof value !== 'string' || value === '') throw new Error(`${what}: the answer has no ${pointer} (a non-empty string)`);
  return value;
}

/** A message of the run's errors (strings, or objects with a message at `pointer`, else message or error). */
function errorText(entry: unknown, pointer: string | undefined): string {
  if (typeof entry === 'string') return entry;
  const m = atPointer(entry, pointer ?? '/message') ?? (pointer ? undefined : atPointer(entry, '/error'));
  return typeof m === 'string' ? m : JSON.stringify(entry);
}

type ReadRun = DeclarativeSpec['readRun'];

/**
 * The capture log: no pointer, or nothing at it (the run holds no log field), is not observable;
 * null there is an empty log (capture off). Each entry keeps its request and the response's status,
 * or the error that stood for it.
 */
function capturedOf(json: unknown, spec: ReadRun): CapturedExchange[] | null {
  if (spec.captureLog === undefined) return null;
  const log = atPointer(json, spec.captureLog);
  if (log === undefined) return null;
  return (Array.isArray(log) ? log : []).map((entry: unknown) => exchangeOf(entry, spec.capture));
}

/** The run's end as the suite judges it: record errors from the count, else from the list's length. */
function outcomeOf(json: unknown, status: string, failed: boolean, spec: ReadRun): RunOutcome {
  const list = spec.errors === undefined ? undefined : atPointer(json, spec.errors);
  const errors = Array.isArray(list) ? list.map((e) => errorText(e, spec.errorMessage)) : typeof list === 'string' && list ? [list] : [];
  const counted = spec.errorCount === undefined ? undefined : atPointer(json, spec.errorCount);
  const recordErrors = typeof counted === 'number' ? counted : Array.isArray(list) ? list.length : 0;
  return { status, failed, recordErrors, errors, captured: capturedOf(json, spec) };
}

export function declarativeAdapter(ctx: AdapterContext, spec: DeclarativeSpec, label = 'declarative'): TargetAdapter {
  // Secrets are filled into bodies; the target may echo them in an error message (escaped, encoded):
  // never pass them on, whatever their length.
  const secrets = new Redactor([ctx.apiKey]);
  const scrub = (text: string) => secrets.text(text);

  function send(op: DeclarativeRequest, fallback: Method, vars: Variables, what: string): Promise<AdapterResponse> {
    const path = interpolate(op.path, vars, what, encodeURIComponent);
    const body = op.body === undefined ? undefined : render(op.body, vars, what);
    return ctx.request(op.method ?? fallback, path, body);
  }

  /** Runs an operation; an error it throws keeps its first line, without any secret. */
  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      const clean = new Error(scrub(e.message.split('\n')[0] ?? ''));
      clean.name = e.name;
      throw clean;
    }
  }

  const create = (op: DeclarativeRequest & { id: string }, vars: Variables, what: string) =>
    guarded(async () => {
      const answer = successOf(await send(op, 'POST', vars, what), what);
      return { json: answer.json, id: idAt(answer.json, op.id, what, idFromLocation(answer.status, answer.headers)) };
    });

  return {
    name: label,

    async createWebhookConnection(name, url) {
      const op = spec.createWebhookConnection;
      const { json, id } = await create(op, { name, url }, 'creating a webhook connection');
      return { id, secret: idAt(json, op.secret, 'creating a webhook connection') };
    },

    async createSourceConnection(db) {
      secrets.add(db.password);
      const { id } = await create(spec.createSourceConnection, { name: `dssc-${ctx.runId}-source-db`, db }, 'creating a source connection');
      return { id };
    },

    async createModel({ name, connectionId, table }) {
      const qualifiedName = `${table.schema}.${table.name}`;
      const vars = { name, connectionId, key: table.key, table: { schema: table.schema, name: table.name, qualifiedName, key: table.key } };
      const { id } = await create(spec.createModel, vars, 'creating a model');
      return { id };
    },

    async createModelSync(s) {
      const key = s.key ?? 'id';
      const vars = { ...s, key, keyTarget: s.fields.find((f) => f.source === key)?.target ?? key };
      const op = spec.createModelSync;
      const { json, id } = await create(op, vars, 'creating a model sync');
      const name = op.name === undefined ? undefined : atPointer(json, op.name);
      return { id, name: typeof name === 'string' ? name : s.name };
    },

    async startRun(syncId) {
      const op = spec.startRun;
      return guarded(async () => {
        const answer = await startRunWaitingOutConflict(() => send(op, 'POST', { syncId }, 'starting a run'), ctx.poll, syncId);
        return { id: idAt(answer.json, op.id, 'starting a run') };
      });
    },

    async waitForRun(syncId, runId, timeoutMs) {
      const op = spec.readRun;
      return guarded(async () => {
        const read = () => send(op, 'GET', { syncId, runId }, 'reading a run');
        const end = await pollRun(read, { ...ctx.poll, timeoutMs }, runId, (a) => atPointer(a.json, op.status), spec.statuses);
        return outcomeOf(end.answer.json, end.status, end.failed, op);
      });
    },

    // Only when the profile says how: without readLog the log is not observable (captured: null).
    ...(spec.readLog && {
      async readCaptureLog(syncId: string, runId: string) {
        const op = spec.readLog!;
        return guarded(async () => {
          const answer = successOf(await send(op, 'GET', { syncId, runId }, 'reading a run\'s capture log'), 'reading a run\'s capture log');
          return captureLogOf(ctx, answer, op);
        });
      },
    }),
  };
}

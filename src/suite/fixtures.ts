import type { ApiResponse } from '../client/http-client.ts';
import type { KindName } from '../profile/profile.ts';
import { api, apiVersion, connectionOf, createConnection, fillTemplate, idOf, kindProfile, once, profile, resourceName, Unmet } from './context.ts';
import { waitingFor } from './progress.ts';
import { prepareKindTables } from './webhook-source.ts';

export type Spelling = 'destination_configuration' | 'dest_configuration';

/** Versioning 3: the spelling of the destination settings per version; 2021-05-23 comes from the profile. */
export function spellingFor(version: string): Spelling {
  if (version >= '2023-04-25') return 'destination_configuration';
  if (version === '2022-12-12') return 'dest_configuration';
  const answer = profile().versions?.spelling2021;
  if (!answer) throw new Unmet(`the spelling of version ${version} is not shown and the profile gives none (versions.spelling2021)`);
  return answer;
}

export const otherSpelling = (s: Spelling): Spelling => (s === 'dest_configuration' ? 'destination_configuration' : 'dest_configuration');

/** The source kind for bulk syncs: a relational database, else an object store, else a CRM. */
export function sourceKind(): KindName {
  const kinds = profile().kinds ?? {};
  const kind = (['relationalDatabase', 'objectStore', 'crm'] as const).find((k) => kinds[k]?.configuration || kinds[k]?.existingId);
  if (!kind) throw new Unmet('the profile names no kind usable as a bulk sync source');
  return kind;
}

export interface BulkBodyOptions {
  version: string;
  destination: 'objectStore' | 'relationalDatabase';
  spelling?: Spelling;
  schemas?: string[];
}

/**
 * A valid bulk sync body. schemas is set as asked; otherwise it takes the shape the ready-source
 * fixture saw accepted, so that a target rejecting one valid shape fails BULK-003 or BULK-004 only,
 * and not every check that needs some bulk sync.
 */
export async function bulkSyncBody(sourceId: string, opts: BulkBodyOptions): Promise<Record<string, unknown>> {
  const dest = kindProfile(opts.destination);
  if (!dest.destinationSettings) throw new Unmet(`the profile gives no destinationSettings for kinds.${opts.destination}`);
  const schemas = opts.schemas ?? ((await readySource().catch(() => undefined))?.acceptedShape === 'with-schemas' ? sourceObjects() : undefined);
  return {
    name: resourceName('bulk'),
    source_connection_id: sourceId,
    destination_connection_id: await connectionOf(opts.destination),
    mode: 'replicate',
    schedule: { frequency: 'manual' },
    ...(schemas ? { schemas } : {}),
    [opts.spelling ?? spellingFor(opts.version)]: dest.destinationSettings,
  };
}

/** The first of the source kind's objects, as a schemas list; undefined when the profile has none. */
export function sourceObjects(): string[] | undefined {
  const list = kindSourceObjects(sourceKind());
  return list && list.length > 0 ? list.slice(0, 1) : undefined;
}

/** A kind's sourceObjects as the profile gives them, placeholders filled ({{tablePrefix}}). */
export function kindSourceObjects(kind: KindName): string[] | undefined {
  const list = profile().kinds?.[kind]?.sourceObjects;
  return list ? fillTemplate(list, {}) : undefined;
}

/** A 400 that is the schema-cache answer (Errors › Specific cases 1), as opposed to a validation error. */
export function isCacheNotReady(res: ApiResponse): boolean {
  if (res.status !== 400) return false;
  const body = res.json as { key?: unknown; message?: unknown } | undefined;
  const text = `${String(body?.key ?? '')} ${String(body?.message ?? '')}`;
  return /no schemas found/i.test(text) || /cache/i.test(text);
}

export interface ReadySource {
  sourceId: string;
  /** The first answer to a bulk sync on the fresh source (BULK-001 judges it). */
  first: ApiResponse;
  /** The first 2xx answer, if the repeats reached one (BULK-002). */
  created?: ApiResponse;
  /** The last answer when no 2xx came. */
  last: ApiResponse;
  attempts: number;
  waitedMs: number;
  /** The "No schemas found" stage ended within the bound (whatever came next). */
  cached: boolean;
  /** The request shape seen accepted once the cache was ready. */
  acceptedShape?: 'minimal' | 'with-schemas';
}

/** readySource's fresh source and its first answer, before any wait (prestartStages sends them before the first check). */
export function readyStart(): Promise<{ kind: string; sourceId: string; repeat: StageRepeat }> {
  return once('ready-source-start', async () => {
    const kind = sourceKind();
    await prepareKindTables(kind);
    const { id: sourceId } = await createConnection(kind);
    const destination = kindProfile('objectStore').destinationSettings ? 'objectStore' : 'relationalDatabase';
    const body = await bulkSyncBody(sourceId, { version: apiVersion(), destination, schemas: [] });
    delete body.schemas;
    const started = Date.now();
    const last = await api().post('/api/bulk/syncs', body);
    return { kind, sourceId, repeat: { body, version: undefined, last, attempts: 1, started, askedAt: Date.now() } };
  });
}

/**
 * A fresh source connection, and the same minimal bulk sync request (schemas omitted: Rules 2)
 * repeated while the answer is the schema-cache 400 (Rules 1), until a 2xx or the profile's timeout.
 */
export function readySource(): Promise<ReadySource> {
  return once('ready-source', async () => {
    const { kind, sourceId, repeat } = await readyStart();
    const { body, started } = repeat;
    const first = repeat.last;
    await repeatEachWhileNotCached([repeat], `the schema cache of a new ${kind} source connection`);
    const { last, attempts } = repeat;
    const waitedMs = Date.now() - started;
    const cached = !isCacheNotReady(last);
    if (is2xx(last.status)) return { sourceId, first, last, attempts, waitedMs, cached, created: last, acceptedShape: 'minimal' };
    // The minimal request is rejected for another reason: find out whether naming the objects works,
    // so the checks that need some bulk sync can still run (BULK-002 and BULK-003 judge the rejection).
    const objects = sourceObjects();
    if (cached && objects) {
      const retry = await api().post('/api/bulk/syncs', { ...body, schemas: objects });
      if (is2xx(retry.status)) return { sourceId, first, last, attempts, waitedMs, cached, created: retry, acceptedShape: 'with-schemas' };
    }
    return { sourceId, first, last, attempts, waitedMs, cached };
  });
}

const is2xx = (status: number) => status >= 200 && status < 300;

/**
 * Repeats the same bulk sync request (under `version`: undefined is the run's, null none) while
 * its answer is the schema-cache 400 (Rules 1), every retryIntervalMs, until another answer or the
 * profile's timeout since `started`. `attempts` counts `last` and the requests before it.
 */
export async function repeatWhileNotCached(
  body: Record<string, unknown>,
  version: string | null | undefined,
  last: ApiResponse,
  attempts: number,
  started: number,
  what: string,
): Promise<{ last: ApiResponse; attempts: number }> {
  const timeoutMs = profile().schemaCache?.timeoutMs ?? 30_000;
  const interval = profile().schemaCache?.retryIntervalMs ?? 500;
  if (isCacheNotReady(last)) {
    await waitingFor(what, timeoutMs, async () => {
      while (isCacheNotReady(last) && Date.now() - started < timeoutMs) {
        await new Promise((r) => setTimeout(r, interval));
        attempts += 1;
        last = await api().post('/api/bulk/syncs', body, version === undefined ? {} : { version });
      }
    });
  }
  return { last, attempts };
}

/** One fresh source's request repeated while in the stage (repeatEachWhileNotCached). */
export interface StageRepeat {
  body: Record<string, unknown>;
  /** As repeatWhileNotCached's: undefined is the run's version, null none. */
  version: string | null | undefined;
  last: ApiResponse;
  attempts: number;
  started: number;
  /** When `last` came: the bound is on the stage as answered, not on when the suite came back to ask. */
  askedAt: number;
}

/**
 * repeatWhileNotCached for several fresh sources at once: the first source still in its stage is
 * tried again an interval after its last answer, and as soon as one is out of it (or was answered
 * past the bound) the next is tried at once, until one answers in the stage. Sources made one after
 * another end their stages about in turn: the walk waits about one stage, not one interval per
 * source, and sends about as many requests as waiting for each in turn would. A source made long
 * before (prestartStages) is asked again at once. Updates each item.
 */
export async function repeatEachWhileNotCached(items: readonly StageRepeat[], what: string): Promise<void> {
  const timeoutMs = profile().schemaCache?.timeoutMs ?? 30_000;
  const interval = profile().schemaCache?.retryIntervalMs ?? 500;
  const inStage = (it: StageRepeat) => isCacheNotReady(it.last) && it.askedAt - it.started < timeoutMs;
  if (!items.some(inStage)) return;
  await waitingFor(what, timeoutMs, async () => {
    for (let open = items.filter(inStage); open.length > 0; open = items.filter(inStage)) {
      const wait = interval - (Date.now() - open[0]!.askedAt);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      for (const it of open) {
        it.attempts += 1;
        it.last = await api().post('/api/bulk/syncs', it.body, it.version === undefined ? {} : { version: it.version });
        it.askedAt = Date.now();
        if (inStage(it)) break;
      }
    }
  });
}

/** A source whose schemas are cached: needed by every bulk sync check after BULK-002. */
export async function cachedSourceId(): Promise<string> {
  const ready = await readySource();
  if (!ready.cached) throw new Unmet(`the source's schemas were not cached within the bound (see BULK-002)`);
  return ready.sourceId;
}

/** A bulk sync whose error handling the suite may read: the profile's, or the one readySource made. */
export function bulkSyncId(): Promise<string> {
  return once('bulk-sync', async () => {
    const existing = profile().bulkSync?.existingId;
    if (existing) return existing;
    const ready = await readySource();
    if (!ready.created) throw new Unmet(`no bulk sync could be created (last answer ${ready.last.status}; see BULK-002)`);
    return idOf(ready.created, 'bulkSync');
  });
}

/** A model sync whose error handling the suite may change: the profile's, or one it creates. */
export function modelSyncId(): Promise<string> {
  return once('model-sync', async () => {
    const m = profile().modelSync;
    if (m?.existingId) return m.existingId;
    if (!m?.request) throw new Unmet('model sync creation is not shown and the profile gives neither modelSync.existingId nor modelSync.request');
    return createModelSync();
  });
}

/** A new model sync from the profile's modelSync.request (creation is not shown by the spec). */
export async function createModelSync(): Promise<string> {
  const m = profile().modelSync;
  if (!m?.request) throw new Unmet('model sync creation is not shown and the profile gives no modelSync.request');
  const connectionId = m.connectionKind ? await connectionOf(m.connectionKind) : '';
  const body = fillTemplate(m.request, { name: resourceName('sync'), connectionId });
  const res = await api().post(m.path ?? '/api/syncs', body);
  if (res.status < 200 || res.status >= 300) throw new Unmet(`creating a model sync answered ${res.status}`);
  return idOf(res, 'modelSync');
}

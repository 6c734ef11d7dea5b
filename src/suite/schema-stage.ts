import type { ApiResponse } from '../client/http-client.ts';
import { values } from '../generators/input-space.ts';
import { api, apiVersion, createConnection, kindProfile, once, profile, settings } from './context.ts';
import { bulkSyncBody, isCacheNotReady, kindSourceObjects, readyStart, repeatEachWhileNotCached, sourceKind, spellingFor } from './fixtures.ts';
import { prepareKindTables } from './webhook-source.ts';

// The "No schemas found" stage under every value of the version dimension (BULK-001, BULK-002):
// a stage wired into one version's code path only, or an answer right the first time and wrong
// when repeated, is seen. One fresh source per version, all walked at once, so the run waits for
// one schema cache, not six.

export const ABSENT = '<absent>';

export interface StageWalk {
  /** The value of the version dimension: a date, or '<absent>' (no header). */
  version: string;
  /** Why this version could not be walked (its spelling is not known, no source could be made). */
  unmet?: string;
  /** The first bulk sync on the fresh source. */
  first?: ApiResponse;
  /** The same request again at once (still in the stage on a target that holds it). */
  repeat?: ApiResponse;
  /** The answer the repeats ended on: a 2xx once the stage is over, or the stage's 400 at the bound. */
  last?: ApiResponse;
  attempts: number;
  waitedMs: number;
  /** The name the walk's bulk sync was sent with, every time (the same body was repeated). */
  name?: string;
}

export const versionLabel = (version: string) => (version === ABSENT ? 'without X-Service-Version' : `under ${version}`);

/** Whether the stage ended (the last answer is not the stage's): what the walk's earlier answers were is then known. */
export const stageEnded = (w: StageWalk) => w.last !== undefined && !isCacheNotReady(w.last);

/**
 * Each version's walk; memoised, so BULK-001 and BULK-002 read the same requests. The walks run
 * one after another, phase by phase (every source made, then every first answer and its repeat,
 * then the repeats, each source's as soon as the one before is out of its stage:
 * repeatEachWhileNotCached): requests.json of two runs of one seed lists the same requests in the
 * same order, and the sources' stages overlap, so the waits cost about one stage, not one retry
 * interval per source besides. The fresh sources of the other source kinds (BULK-002, source
 * kinds) go through the same phases, so their stages overlap the versions' too.
 */
export function stageWalk(): Promise<StageWalk[]> {
  return stageWalks().then((w) => w.versions);
}

/** The other source kinds' walks (BULK-002, source kinds), made beside the versions' (stageWalk). */
export function sourceKindWalk(): Promise<KindWalk[]> {
  return stageWalks().then((w) => w.kinds);
}

/** The source kinds the profile gives a configuration and sourceObjects for, besides the run's own source kind. */
export function otherSourceKinds(): Array<'crm' | 'marketing' | 'objectStore'> {
  return (['crm', 'marketing', 'objectStore'] as const).filter((k) => k !== sourceKind() && profile().kinds?.[k]?.configuration && (kindSourceObjects(k)?.length ?? 0) > 0);
}

export interface KindWalk {
  kind: string;
  /** The source connection walked (absent when its creation failed). */
  sourceId?: string;
  /** What stopped the walk before its first answer (a creation that failed): the check says it. */
  error?: unknown;
  first?: ApiResponse;
  last?: ApiResponse;
  attempts: number;
  started: number;
}

type KindStart = KindWalk & { body?: Record<string, unknown>; askedAt?: number };

/** The walks' fresh sources made and their first answers (and repeats) got, before any wait: prestartStages sends them before the first check. */
function stageStart(): Promise<{ asked: Array<StageWalk | Asked>; kinds: KindStart[] }> {
  return once('stage-start', async () => {
    const kind = sourceKind();
    await prepareKindTables(kind);
    // Both destination kinds, alternately: the pairs version × destination of the accepted bodies are VER-002 to VER-006's.
    const destinations = (['objectStore', 'relationalDatabase'] as const).filter((d) => profile().kinds?.[d]?.destinationSettings);
    // The other kinds' sources first: their stages then end while the versions' are walked.
    const kinds: KindStart[] = [];
    for (const k of otherSourceKinds()) kinds.push(await prepareKind(k));
    const prepared: Prepared[] = [];
    for (const [i, v] of stageVersions().entries()) prepared.push(await prepare(v, destinations[i % Math.max(1, destinations.length)] ?? 'objectStore'));
    const asked: Array<StageWalk | Asked> = [];
    for (const p of prepared) asked.push('body' in p ? await ask(p) : p);
    for (const k of kinds) {
      if (!k.body) continue;
      k.first = await api().post('/api/bulk/syncs', k.body);
      k.askedAt = Date.now();
    }
    return { asked, kinds };
  });
}

/**
 * The versions whose stage is walked: every value of the version dimension, in a run's first (or
 * only) pass. A later pass of --api-version all walks none: the first pass's walk already sent the
 * stage's request under each version, as the VER checks (first pass only) try each version
 * themselves; each later pass repeated six fresh sources and their stages for nothing new. The
 * pass's own version is still walked there by BULK-001/002's checks without a version in the title.
 */
export function stageVersions(): string[] {
  const pass = settings().versionPass;
  return pass && !pass.first ? [] : values('version').map(String);
}

function stageWalks(): Promise<{ versions: StageWalk[]; kinds: KindWalk[] }> {
  return once('stage-walk', async () => {
    const { asked, kinds } = await stageStart();
    // Every stage waited for together, the versions' first, then the kinds'.
    const waits = asked.flatMap((a) => ('body' in a ? [{ a, r: { body: a.body, version: a.header, last: a.repeat, attempts: a.repeat === a.first ? 1 : 2, started: a.started, askedAt: a.askedAt } }] : []));
    const kindWaits = kinds.flatMap((k) => (k.body && k.first ? [{ k, r: { body: k.body, version: undefined, last: k.first, attempts: 1, started: k.started, askedAt: k.askedAt ?? Date.now() } }] : []));
    await repeatEachWhileNotCached([...waits.map((w) => w.r), ...kindWaits.map((w) => w.r)], `the schema caches of ${waits.length + kindWaits.length} fresh sources`);
    const out: StageWalk[] = asked.map((a) => {
      const w = waits.find((x) => x.a === a);
      return w ? ended(a as Asked, w.r.last, w.r.attempts) : (a as StageWalk);
    });
    for (const { k, r } of kindWaits) Object.assign(k, { last: r.last, attempts: r.attempts });
    return { versions: out, kinds: kinds.map(({ body: _body, askedAt: _askedAt, ...k }) => k) };
  });
}

/**
 * Makes the fresh sources the stage walks need (readySource's, then the versions' and the kinds')
 * and sends their first requests before the first check, so that their stages pass while the first
 * spec files run; each check waits at its turn for what is left. The requests go out here, in one
 * place, so the request log keeps one order. A failure is met again by the checks that need them.
 * src/suite/setup.ts calls it in a run of every check (readySource too) or of the stage's checks;
 * not in a shard.
 */
export async function prestartStages(): Promise<void> {
  const s = settings();
  if (s.sharded) return;
  if (s.selected === undefined) await readyStart().catch(() => undefined);
  await stageStart().catch(() => undefined);
}

async function prepareKind(kind: 'crm' | 'marketing' | 'objectStore'): Promise<KindStart> {
  const started = Date.now();
  try {
    const { id } = await createConnection(kind);
    const body = await bulkSyncBody(id, { version: apiVersion(), destination: 'objectStore', schemas: [] });
    delete body.schemas;
    return { kind, sourceId: id, body, attempts: 1, started };
  } catch (error) {
    return { kind, error, attempts: 0, started };
  }
}

interface Ready {
  version: string;
  header: string | null;
  body: Record<string, unknown>;
}
type Prepared = Ready | StageWalk;
interface Asked extends Ready {
  started: number;
  first: ApiResponse;
  repeat: ApiResponse;
  askedAt: number;
}

async function prepare(version: string, destination: 'objectStore' | 'relationalDatabase'): Promise<Prepared> {
  const header = version === ABSENT ? null : version;
  const unmet = (why: unknown): StageWalk => ({ version, unmet: why instanceof Error ? why.message.split('\n')[0] : String(why), attempts: 0, waitedMs: 0 });
  try {
    const served = header ?? profile().versions?.default;
    if (!served) return unmet('what the service does without the header is not shown, and the profile gives no versions.default');
    kindProfile(destination);
    // The source is made under the run's version: the version walked is the bulk sync's.
    const { id } = await createConnection(sourceKind());
    const body = await bulkSyncBody(id, { version: served, destination, spelling: spellingFor(served), schemas: [] });
    delete body.schemas;
    return { version, header, body };
  } catch (error) {
    return unmet(error);
  }
}

async function ask(p: Ready): Promise<Asked> {
  const started = Date.now();
  const options = { version: p.header };
  const first = await api().post('/api/bulk/syncs', p.body, options);
  // The same body again at once (a 2xx made a sync: nothing to repeat): during the stage both answers must be the spec's.
  const repeat = first.status >= 200 && first.status < 300 ? first : await api().post('/api/bulk/syncs', p.body, options);
  return { ...p, started, first, repeat, askedAt: Date.now() };
}

function ended(a: Asked, last: ApiResponse, attempts: number): StageWalk {
  const { version, first, repeat, started } = a;
  return { version, first, repeat: repeat === first ? undefined : repeat, last, attempts, waitedMs: Date.now() - started, name: String(a.body.name) };
}

import { ApiClient, TransportError } from '../client/http-client.ts';
import { interpolate } from '../adapters/template.ts';
import { KIND_LABELS, RESOURCE_KINDS, type CleanupSpec, type ResourceKind } from '../profile/cleanup-spec.ts';
import type { CreatedResource } from '../report/created-log.ts';
import type { Redactor } from '../report/redact.ts';

// Deleting the kit's resources on a target, as the profile's cleanup section says: the run's own
// at its end (delete-created.ts), and dead runs' leftovers (dss-conformance cleanup --base-url).

/** A delete that failed: what, and why (never a secret: the reason is redacted). */
export interface DeleteFailure {
  kind: ResourceKind;
  id: string;
  name?: string | undefined;
  reason: string;
}

export interface DeleteOutcome {
  deleted: CreatedResource[];
  failures: DeleteFailure[];
  /** Resources of kinds the profile gives no delete for, counted by kind. */
  kept: Partial<Record<ResourceKind, number>>;
  /** Resources not tried: the time bound ran out, or the target stopped answering. */
  notTried: number;
  /** Why the target was taken as not answering (a delete got no answer), when it was. */
  noAnswer?: string;
}

export interface TargetAccess {
  baseUrl: string;
  apiKey: string;
  orgKey?: string | undefined;
  basic?: 'key-as-username' | 'key-as-password' | undefined;
  version?: string | undefined;
  timeoutMs: number;
  maxRps?: number | undefined;
  redactor: Redactor;
}

/** A client of its own: no run deadline (the run's may be what ended it), and nothing in the run's request log. */
export function cleanupClient(t: TargetAccess): ApiClient {
  return new ApiClient({ baseUrl: t.baseUrl, apiKey: t.apiKey, orgKey: t.orgKey, basic: t.basic, version: t.version, timeoutMs: t.timeoutMs, maxRps: t.maxRps, redactor: t.redactor, maxRetryAfterMs: 5_000 });
}

/** A delete that got no answer: the target is not answering, so the rest are not tried. */
export class NoAnswer extends Error {}

/** Deletes one resource: undefined when it is gone (2xx, or 404/410: already gone), else why not. Throws NoAnswer when no answer came. */
export async function deleteOne(client: ApiClient, spec: NonNullable<CleanupSpec[ResourceKind]>, r: CreatedResource): Promise<string | undefined> {
  // URL resolution turns /api/connections/.. into /api/ and an empty id into the collection: a
  // target (or its list) that answers such an id must not make the kit delete something else.
  if (/^\s*$|^\.{1,2}$/.test(r.id)) return `its id ${JSON.stringify(r.id)} is not an id (a path with it names the collection or its parent, not the resource)`;
  try {
    const path = interpolate(spec.delete.path, { id: r.id, name: r.name ?? '' }, `deleting ${KIND_LABELS[r.kind]} ${r.id}`, encodeURIComponent);
    const res = await client.send({ method: spec.delete.method ?? 'DELETE', path });
    if ((res.status >= 200 && res.status < 300) || res.status === 404 || res.status === 410) return undefined;
    const message = (res.json as { message?: unknown } | undefined)?.message;
    return `answered ${res.status}${typeof message === 'string' && message ? ` (${message.split('\n')[0]!.slice(0, 200)})` : ''}`;
  } catch (error) {
    if (error instanceof TransportError) throw new NoAnswer(error.message.split('\n')[0]!);
    return (error as Error).message.split('\n')[0]!;
  }
}

/**
 * Deletes resources kind by kind, dependents first (syncs, then models, then connections), within
 * boundMs: what is left when it runs out, or once a delete got no answer at all (a target that
 * stopped answering costs one timeout, not one per resource), is counted, not tried.
 */
export async function deleteResources(client: ApiClient, spec: CleanupSpec | undefined, resources: readonly CreatedResource[], redactor: Redactor, boundMs: number): Promise<DeleteOutcome> {
  const until = Date.now() + boundMs;
  const out: DeleteOutcome = { deleted: [], failures: [], kept: {}, notTried: 0 };
  for (const kind of RESOURCE_KINDS) {
    const ofKind = resources.filter((r) => r.kind === kind);
    if (ofKind.length === 0) continue;
    const how = spec?.[kind];
    if (!how) {
      out.kept[kind] = ofKind.length;
      continue;
    }
    for (const r of ofKind) {
      if (Date.now() >= until || out.noAnswer !== undefined) {
        out.notTried++;
        continue;
      }
      let problem: string | undefined;
      try {
        problem = await deleteOne(client, how, r);
      } catch (error) {
        if (!(error instanceof NoAnswer)) throw error;
        out.noAnswer = redactor.text(error.message);
        out.failures.push({ kind, id: r.id, ...(r.name !== undefined ? { name: r.name } : {}), reason: out.noAnswer });
        continue;
      }
      if (problem === undefined) out.deleted.push(r);
      else out.failures.push({ kind, id: r.id, ...(r.name !== undefined ? { name: r.name } : {}), reason: redactor.text(problem) });
    }
  }
  return out;
}

/** One line per thing worth saying about a cleanup, for the console and the stream. */
export function cleanupLines(o: DeleteOutcome, what: string): string[] {
  const lines: string[] = [];
  const count = (n: number, kind: ResourceKind | 'resource') => `${n} ${kind === 'resource' ? 'resource' : KIND_LABELS[kind]}${n === 1 ? '' : 's'}`;
  if (o.deleted.length > 0) lines.push(`deleted ${count(o.deleted.length, 'resource')} ${what}`);
  for (const [kind, n] of Object.entries(o.kept) as Array<[ResourceKind, number]>) lines.push(`kept ${count(n, kind)} ${what}: the profile declares no delete for them (cleanup.${kind}.delete)`);
  for (const f of o.failures.slice(0, 10)) lines.push(`could not delete ${KIND_LABELS[f.kind]} ${f.id}${f.name ? ` (${f.name.slice(0, 80)})` : ''}: ${f.reason}`);
  if (o.failures.length > 10) lines.push(`could not delete ${o.failures.length - 10} more`);
  if (o.notTried > 0) lines.push(`left ${count(o.notTried, 'resource')} ${what} undeleted: ${o.noAnswer ? 'the target stopped answering' : 'the time for deleting ran out'} (dss-conformance cleanup --base-url removes them later)`);
  return lines;
}

import type { Exchange } from '../client/http-client.ts';
import { idFromLocation } from '../client/location-id.ts';
import { loadReferenceProfile, atPointer, idPointer, type Profile } from '../profile/profile.ts';
import type { ResourceKind } from '../profile/cleanup-spec.ts';
import { appendCreated } from '../report/created-log.ts';

// Which requests create a resource on the target, so that the run can delete it afterwards: the
// spec's creations (POST /api/connections, /api/bulk/syncs), the profile's model sync request, and
// the declarative adapter's creations (its paths, or the real service's when the profile has none).
// A code adapter's creations on these paths are seen too; others are the adapter's own cleanup().

interface Creation {
  kind: ResourceKind;
  path: RegExp;
  /** Where the new resource's id is in the answer. */
  id: string;
}

/** A path template as a pattern: each {{variable}} stands for one path segment. */
function pathPattern(template: string): RegExp {
  const parts = template.split(/\{\{[^}]*\}\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

export function creationsOf(profile: Profile, codeAdapter: boolean): Creation[] {
  const list: Creation[] = [
    { kind: 'connections', path: pathPattern('/api/connections'), id: idPointer(profile, 'connection') },
    { kind: 'bulkSyncs', path: pathPattern('/api/bulk/syncs'), id: idPointer(profile, 'bulkSync') },
    { kind: 'modelSyncs', path: pathPattern(profile.modelSync?.path ?? '/api/syncs'), id: idPointer(profile, 'modelSync') },
  ];
  const d = profile.adapter?.declarative ?? (codeAdapter ? undefined : loadReferenceProfile().adapter?.declarative);
  if (d) {
    const ops = [['connections', d.createWebhookConnection], ['connections', d.createSourceConnection], ['models', d.createModel], ['modelSyncs', d.createModelSync]] as const;
    for (const [kind, op] of ops) if ((op.method ?? 'POST') === 'POST') list.push({ kind, path: pathPattern(op.path), id: op.id });
  }
  return list;
}

function json(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Notes the resource an exchange created, if it is a creation the kit knows and was answered 2xx with an id. */
export function noteCreation(exchange: Exchange, creations: readonly Creation[], dir: string, baseUrl: string): void {
  const { request, response } = exchange;
  if (request.method !== 'POST' || !response || response.status < 200 || response.status >= 300) return;
  // A base URL with a path of its own (https://host/prefix) puts it before /api.
  const prefix = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const full = new URL(request.url).pathname;
  const path = full.startsWith(prefix) ? full.slice(prefix.length) : full;
  const matching = creations.filter((c) => c.path.test(path));
  if (matching.length === 0) return;
  const answer = json(response.body);
  const name = (json(request.body) as { name?: unknown } | undefined)?.name;
  const note = (kind: Creation['kind'], id: string) => appendCreated(dir, { kind, id, ...(typeof name === 'string' ? { name } : {}) });
  for (const c of matching) {
    const id = atPointer(answer, c.id);
    if ((typeof id === 'string' && id !== '') || typeof id === 'number') return note(c.kind, String(id));
  }
  // No id in the body: the new resource may be named in Location, as the kit's creations read it (idFromLocation).
  const located = idFromLocation(response.status, response.headers);
  if (located !== undefined) note(matching[0]!.kind, located);
}

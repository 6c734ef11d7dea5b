import { checkTemplate, type Shape } from '../adapters/template.ts';

// The profile's cleanup section: how the target deletes, and lists, each kind of resource the kit
// creates. The spec shows no delete; the real service has one per kind. Its JSON Schema is in
// fixtures/profiles/profile.schema.json; the variables of the path templates are checked here.

export type ResourceKind = 'connections' | 'models' | 'modelSyncs' | 'bulkSyncs';

/** Dependents first: a sync goes before the model and the connections it names. */
export const RESOURCE_KINDS: readonly ResourceKind[] = ['modelSyncs', 'bulkSyncs', 'models', 'connections'];

/** How the report names a kind. */
export const KIND_LABELS: Readonly<Record<ResourceKind, string>> = { connections: 'connection', models: 'model', modelSyncs: 'model sync', bulkSyncs: 'bulk sync' };

export interface ResourceKindSpec {
  delete: { method?: 'DELETE' | 'POST' | 'PUT'; path: string };
  list?: { path: string; items: string; id?: string; name?: string; createdAt?: string };
}

export type CleanupSpec = Partial<Record<ResourceKind, ResourceKindSpec>>;

/** What a delete's path may name. */
export const DELETE_VARIABLES: Readonly<Record<string, Shape>> = { id: 'value', name: 'value' };

/** The first problem the schema cannot see (an unknown variable), as "<pointer>: <what>". */
export function checkCleanup(spec: CleanupSpec, at = '/cleanup'): string | undefined {
  for (const kind of RESOURCE_KINDS) {
    const k = spec[kind];
    if (!k) continue;
    const problem = checkTemplate(k.delete.path, DELETE_VARIABLES, `${at}/${kind}/delete/path`) ?? (k.list ? checkTemplate(k.list.path, {}, `${at}/${kind}/list/path`) : undefined);
    if (problem) return problem;
  }
  return undefined;
}

import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../errors.ts';
import type { Runs } from '../runs.ts';
import { isEnded, type Store } from '../store.ts';

// Extension: deleting and listing what a client created, as the real service does
// (DELETE /api/connections/{id}, /api/models/{id}, /api/syncs/{id}, /api/bulk/syncs/{id}, and a GET
// list at each collection). The spec shows neither ("listing, reading, updating, deleting ...: not
// shown"); the kit uses them to leave nothing behind (profile cleanup, dss-conformance cleanup).

type IdParams = { Params: { id: string } };

interface Collection {
  path: string;
  label: string;
  /** Every resource of the collection: its id and name. */
  all(store: Store): Iterable<{ id: string; name: string }>;
  /** Removes it; false when there is none with that id. */
  remove(store: Store, id: string, runs: Runs): boolean;
}

const COLLECTIONS: readonly Collection[] = [
  {
    path: '/api/connections', label: 'connection',
    all: (store) => store.connections.values(),
    remove: (store, id) => store.connections.delete(id),
  },
  {
    path: '/api/models', label: 'model',
    all: (store) => store.models.values(),
    remove: (store, id) => store.models.delete(id),
  },
  {
    path: '/api/syncs', label: 'model sync',
    all: (store) => store.modelSyncs.values(),
    remove: (store, id, runs) => {
      const sync = store.modelSyncs.get(id);
      // The real service cancels a run under way before the sync goes.
      for (const run of sync?.executions ?? []) if (!isEnded(run)) runs.cancel(run);
      return store.modelSyncs.delete(id);
    },
  },
  {
    path: '/api/bulk/syncs', label: 'bulk sync',
    all: (store) => store.bulkSyncs.values(),
    remove: (store, id) => store.bulkSyncs.delete(id),
  },
];

/**
 * Registered before the creations: each creation answered 2xx is stamped with its time, which the
 * lists answer as created_at (what `dss-conformance cleanup --older-than` reads).
 */
export function deleteRoutes(app: FastifyInstance, store: Store, runs: Runs): void {
  const createdAt = new Map<string, string>();
  const creations = new Set(COLLECTIONS.map((c) => c.path));
  app.addHook('preSerialization', async (request, reply: FastifyReply, payload: unknown) => {
    if (request.method !== 'POST' || reply.statusCode >= 300 || !creations.has(request.routeOptions.url ?? '')) return payload;
    const id = (payload as { data?: { id?: unknown } } | null)?.data?.id;
    if (typeof id === 'string') createdAt.set(id, new Date().toISOString());
    return payload;
  });

  for (const c of COLLECTIONS) {
    app.get(c.path, async () => ({
      data: [...c.all(store)].map((r) => ({ id: r.id, name: r.name, created_at: createdAt.get(r.id) ?? null })),
    }));
    app.delete<IdParams>(`${c.path}/:id`, async (request, reply) => {
      if (!c.remove(store, request.params.id, runs)) throw new ApiError('not_found', `no ${c.label} with id ${request.params.id}`, { id: request.params.id });
      createdAt.delete(request.params.id);
      return reply.code(204).send();
    });
  }
}

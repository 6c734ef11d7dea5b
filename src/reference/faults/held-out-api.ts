import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import type { Store } from '../store.ts';
import { isObject, requireShape } from '../validation.ts';
import { beforeRoute, isRoute, ROUTES, wrapStore, type Fault } from './fault.ts';

/**
 * Vendor bugs written from the spec alone by an outside tester (issue 18), each wrong under one
 * value of an input dimension only (one kind, one version, a list length, an id shape, a credential
 * form, a position, a second read): where a suite that walks one value per dimension is blind.
 * These are the ones the suite missed until a value or an observation was added to it, so each
 * proves its addition (fault matrix). The ones it caught at once are in held-out-api-caught.ts,
 * outside the catalogue.
 */

type Body = Record<string, unknown>;
export const bodyOf = (request: FastifyRequest): Body => (isObject(request.body) ? request.body : {});
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Auth checked by a route hook after something else (validation, lookup) instead of first. */
function authAfter(app: FastifyInstance, seams: { config: { authenticate: (h: string | undefined) => boolean } }, first: (request: FastifyRequest) => void): void {
  const original = seams.config.authenticate;
  seams.config.authenticate = () => true;
  app.addHook('preHandler', async (request) => {
    first(request);
    if (!original(request.headers.authorization)) throw new ApiError('forbidden', 'a valid Authorization header is required');
  });
}

export function connectionType(store: Store, id: unknown): string | undefined {
  return typeof id === 'string' ? store.getConnection(id)?.type : undefined;
}

export const heldOutApiKept: readonly Fault[] = [
  {
    name: 'connection-type-other-case-500',
    breaks: ['CONN-008'],
    description: "POST /api/connections fails with 500 internal_error on a type that is a kind's identifier with capitals (Salesforce, SALESFORCE): the kind table is read unnormalised and the miss dereferenced. A lowercase unknown type is refused as before.",
    apply({ app }) {
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const type = bodyOf(request).type;
        if (typeof type === 'string' && type !== type.toLowerCase()) throw new Error('kind lookup failed');
      });
    },
  },
  {
    name: 'bulk-name-utf8-bytes-500',
    breaks: ['BULK-003'],
    description: 'POST /api/bulk/syncs fails with 500 internal_error on a name of at most 255 characters whose UTF-8 form is longer than 255 bytes (a byte-sized column behind a check counted in characters); ASCII names of any length, and short non-ASCII ones, are taken.',
    apply({ app }) {
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const name = bodyOf(request).name;
        if (typeof name === 'string' && name.length <= 255 && Buffer.byteLength(name) > 255) throw new Error('value too long');
      });
    },
  },
  {
    name: 'bulk-unknown-connection-uuid-500',
    breaks: ['BULK-005'],
    description: 'POST /api/bulk/syncs fails with 500 internal_error when source_connection_id is shaped like the service\'s ids (a UUID) but names no connection (the lookup\'s miss dereferenced); an unknown id of another shape is refused 400.',
    apply({ app, store }) {
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const id = bodyOf(request).source_connection_id;
        if (typeof id === 'string' && UUID.test(id) && !store.getConnection(id)) throw new Error('null dereference');
      });
    },
  },
  {
    name: 'bearer-key-prefix-compared',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'A Bearer key is found by its first 8 characters and never compared whole: a key of the API key\'s length that starts like it is accepted, on every endpoint.',
    apply({ config, keys }) {
      const original = config.authenticate;
      config.authenticate = (h) => {
        const m = /^bearer +(\S+)$/i.exec(h ?? '');
        if (m && m[1]!.length === keys.apiKey.length && m[1]!.slice(0, 8) === keys.apiKey.slice(0, 8)) return true;
        return original(h);
      };
    },
  },
  {
    name: 'auth-after-body-validation',
    breaks: ['AUTH-003', 'AUTH-004'],
    description: 'PUT /api/syncs/{id}/error-handling validates its body before the credential: a body of the wrong shape sent without a key, or with a wrong one, is answered 400 instead of 403.',
    apply(seams) {
      authAfter(seams.app, seams, (request) => {
        if (isRoute(request, 'PUT', ROUTES.syncErrorHandling)) requireShape('sync-error-handling-update.schema.json', request.body);
      });
    },
  },
  {
    name: 'auth-after-id-lookup',
    breaks: ['AUTH-003', 'AUTH-004'],
    description: 'GET /api/bulk/syncs/{id}/error-handling looks the id up before the credential: an unknown id sent without a key, or with a wrong one, is answered 404 instead of 403 (telling a caller without a key which ids exist).',
    apply(seams) {
      authAfter(seams.app, seams, (request) => {
        if (isRoute(request, 'GET', ROUTES.bulkErrorHandling) && !seams.store.bulkErrorHandling((request.params as { id: string }).id)) {
          throw new ApiError('not_found', 'no bulk sync');
        }
      });
    },
  },
  {
    name: 'put-subscribers-first-item-checked',
    breaks: ['EHS-006'],
    description: 'PUT /api/syncs/{id}/error-handling type-checks subscribers[0] only and silently drops later items that are not strings (answered 200); a wrong item alone or first is refused 400.',
    apply({ app }) {
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const list = bodyOf(request).subscribers;
        if (Array.isArray(list) && typeof list[0] === 'string') bodyOf(request).subscribers = list.filter((item) => typeof item === 'string');
      });
    },
  },
  {
    name: 'bulk-error-handling-database-destination-404',
    breaks: ['EHB-001'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers 404 for a bulk sync into a relational database destination (its settings are looked up among the object-store syncs only).',
    apply({ store }) {
      wrapStore(store, 'bulkErrorHandling', (original) => (id) => {
        const sync = store.bulkSyncs.get(id);
        return sync && connectionType(store, sync.destinationConnectionId) === 'postgresql' ? undefined : original(id);
      });
    },
  },
  {
    name: 'version-header-read-in-lower-case-only',
    breaks: ['VER-003'],
    description: 'X-Service-Version is read only when its name arrives in lower case (a raw-header lookup): sent as the spec writes it, the header counts as absent and the default version (2025-09-18) serves the request.',
    apply({ app, config }) {
      app.addHook('onRequest', async (request, reply) => {
        const raw = request.raw.rawHeaders;
        const lower = raw.some((h, i) => i % 2 === 0 && h === 'x-service-version');
        if (!lower && request.headers['x-service-version'] !== undefined) {
          request.serviceVersion = config.defaultVersion;
          reply.header('x-service-version', config.defaultVersion);
        }
      });
    },
  },
];

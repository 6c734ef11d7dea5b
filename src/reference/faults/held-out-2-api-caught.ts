import { ApiError, fieldError } from '../errors.ts';
import type { SyncErrorHandling } from '../store.ts';
import { isObject, requireShape } from '../validation.ts';
import { authAfter, basicValue, bearerToken, bodyOf, kindOf } from './held-out-2-api.ts';
import { beforeRoute, editErrorBody, editSuccess, ROUTES, wrapStore, type Fault } from './fault.ts';
import { connectionKind } from '../connection-kinds.ts';

const BOOLEAN_FIELDS = ['auto_retry_record_errors', 'notify_on_record_errors', 'warning_notifications'] as const;

/**
 * The held-out faults of round 2 (held-out-2-api.ts) that the suite caught before any change to
 * it, with the IDs that failed: a held-out set kept outside the catalogue (each would cost the
 * fault matrix a run and prove nothing new). To measure the suite's power on them again, spread
 * heldOut2ApiCaught into FAULTS (src/reference/faults.ts) for the measurement only.
 */
export const heldOut2ApiCaught: readonly Fault[] = [
  {
    name: 'ho2-auth-bearer-prefix',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: "Compares only the first 12 characters of a Bearer token, so a wrong key sharing them is accepted (Spec › Authentication 3: 'Requests that use a missing or insufficient credential are answered with 403').",
    apply({ config, keys }) {
      const authenticate = config.authenticate;
      config.authenticate = (header) => {
        const token = bearerToken(header);
        if (token !== undefined && token.length >= 12 && token.slice(0, 12) === keys.apiKey.slice(0, 12)) return true;
        return authenticate(header);
      };
    },
  },
  {
    name: 'ho2-auth-basic-user-key',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: "Takes the user API key in Basic as well as the organization key (one key table for both schemes), though Basic carries 'an organization-scoped API key' (Spec › Authentication 1, 3).",
    apply({ config, keys }) {
      const authenticate = config.authenticate;
      config.authenticate = (header) => {
        const value = basicValue(header);
        if (value === `${keys.apiKey}:` || value === keys.apiKey) return true;
        return authenticate(header);
      };
    },
  },
  {
    name: 'ho2-auth-lookup-first',
    breaks: ['AUTH-003', 'AUTH-004'],
    description: "GET /api/bulk/syncs/{id}/error-handling looks the id up before the credential, so an unknown id with a wrong credential is answered 404, not 403 (Spec › Authentication 3; Endpoints: 'Every endpoint requires authentication').",
    apply(seams) {
      authAfter(seams, 'GET', ROUTES.bulkErrorHandling, (request) => {
        const id = (request.params as { id: string }).id;
        if (!seams.store.bulkSyncs.has(id)) throw new ApiError('not_found', `no bulk sync with id ${id}`, { id });
      });
    },
  },
  {
    name: 'ho2-auth-validation-first',
    breaks: ['AUTH-003', 'AUTH-004'],
    description: "PUT /api/syncs/{id}/error-handling validates the body before the credential, so a bad body with a wrong credential is answered 400, not 403 (Spec › Authentication 3).",
    apply(seams) {
      authAfter(seams, 'PUT', ROUTES.syncErrorHandling, (request) => requireShape('sync-error-handling-update.schema.json', request.body));
    },
  },
  {
    name: 'ho2-auth-absent-500',
    breaks: ['AUTH-003', 'AUTH-005'],
    description: "An absent Authorization header crashes the credential parser (500) instead of a 403, while a wrong one is answered 403 (Spec › Authentication 3: 'a missing ... credential').",
    apply({ config }) {
      const authenticate = config.authenticate;
      config.authenticate = (header) => {
        if (header === undefined) throw new TypeError("Cannot read properties of undefined (reading 'split')");
        return authenticate(header);
      };
    },
  },
  {
    name: 'ho2-version-2022-reads-new-spelling',
    breaks: ['VER-003'],
    apiVersion: '2022-12-12',
    description: "Under 2022-12-12 the bulk sync's dest_configuration is accepted but never read, so an object-store or database destination is refused for missing settings (Spec › Versioning 3: 'version 2022-12-12 names the bulk sync destination settings object dest_configuration').",
    apply({ app }) {
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        if (request.serviceVersion === '2022-12-12' && isObject(request.body)) delete request.body.dest_configuration;
      });
    },
  },
  {
    name: 'ho2-version-2021-no-bulk-error-handling',
    breaks: ['VER-001'],
    apiVersion: '2021-05-23',
    description: "GET /api/bulk/syncs/{id}/error-handling answers 404 for every id under 2021-05-23, the route being registered only for later versions (Spec › Endpoints: 'Every endpoint ... accepts the version header'; Versioning 2).",
    apply({ app }) {
      beforeRoute(app, 'GET', ROUTES.bulkErrorHandling, (request) => {
        if (request.serviceVersion === '2021-05-23') throw new ApiError('not_found', `no route for GET ${request.url}`);
      });
    },
  },
  {
    name: 'ho2-no-schemas-repeat-message',
    breaks: ['BULK-001'],
    description: "The repeat of a bulk sync refused for uncached schemas is answered 400 with a message that no longer begins with 'No schemas found' (Spec › Errors › Specific cases 1: 'a message that begins with \"No schemas found\"').",
    apply({ app }) {
      const answered = new Set<string>();
      editErrorBody(app, (body, reply) => {
        if (body.key !== 'schemas_not_cached') return;
        const source = String(bodyOf(reply.request).source_connection_id);
        if (answered.has(source)) body.message = 'Schemas are still being cached for this connection; try again shortly.';
        answered.add(source);
      });
    },
  },
  {
    name: 'ho2-conn-port-int16',
    breaks: ['CONN-001', 'CONN-005', 'CONN-006'],
    description: "A relational-database port above 32767 is refused (a signed 16-bit column), though 'port | integer' shows no bound below a TCP port's (Spec › configuration by kind › Relational database).",
    apply({ app }) {
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const body = bodyOf(request);
        const port = isObject(body.configuration) ? body.configuration.port : undefined;
        if (kindOf(body) === 'relationalDatabase' && typeof port === 'number' && port > 32767) throw fieldError('/configuration/port', 'is out of range');
      });
    },
  },
  {
    name: 'ho2-conn-crm-domain-path',
    breaks: ['CONN-001'],
    description: "A CRM domain with a path or a trailing slash (https://acme.example.com/) is refused; the spec asks for a 'string (URL)', 'Base URL of the customer's CRM instance' (Spec › configuration by kind › CRM).",
    apply({ app }) {
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const body = bodyOf(request);
        const domain = isObject(body.configuration) ? body.configuration.domain : undefined;
        if (kindOf(body) === 'crm' && typeof domain === 'string' && !/^https?:\/\/[^/?#]+$/i.test(domain)) {
          throw fieldError('/configuration/domain', 'must be a bare origin such as https://acme.example.com');
        }
      });
    },
  },
  {
    name: 'ho2-conn-redirect-drops-auth-url',
    breaks: ['CONN-007'],
    description: "When redirect_url is sent, the OAuth kinds answer without auth_url (the vendor thought the redirect replaces it) (Spec › Connection response: 'when the kind authenticates with OAuth 2.0, the response carries auth_url').",
    apply({ app }) {
      editSuccess(app, 'POST', ROUTES.connections, (data, request) => {
        if (bodyOf(request).redirect_url !== undefined) delete data.auth_url;
      });
    },
  },
  {
    name: 'ho2-conn-name-non-ascii-500',
    breaks: ['CONN-001'],
    description: "A connection name with a character outside ASCII crashes creation (500); the name is any 'string' (Spec › Connection: name; Errors: POST /api/connections lists no 500).",
    apply({ app }) {
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const name = bodyOf(request).name;
        if (typeof name === 'string' && /[^\x00-\x7f]/.test(name)) throw new RangeError('name is not latin1-safe');
      });
    },
  },
  {
    name: 'ho2-conn-duplicate-name',
    breaks: ['CONN-001'],
    description: "A second connection with the name of an existing one is refused (400, name taken); the spec makes name a display name with no uniqueness, and 400 is for the shape only (Spec › Connection: 'Display name'; Errors: POST /api/connections 400 'shape only').",
    apply({ app, store }) {
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const name = bodyOf(request).name;
        if ([...store.connections.values()].some((c) => c.name === name)) throw fieldError('/name', 'is already used by another connection');
      });
    },
  },
  {
    name: 'ho2-bulk-objectstore-never-cached',
    breaks: ['BULK-002'],
    description: "A bulk sync from an object-store source is answered 'No schemas found' forever: its cache is never built, so repeating never gets a 2xx (Spec › What the service does 7; POST /api/bulk/syncs Rules 1: 'safe to repeat until a 2xx status is returned').",
    apply({ app, store }) {
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const id = bodyOf(request).source_connection_id;
        const source = typeof id === 'string' ? store.getConnection(id) : undefined;
        if (source && connectionKind(source.type)?.specKind === 'objectStore') {
          throw new ApiError('schemas_not_cached', `No schemas found for connection ${source.id}; try again in a few seconds.`);
        }
      });
    },
  },
  {
    name: 'ho2-bulk-eh-latest-only',
    breaks: ['EHB-001', 'EHB-003', 'VER-001'],
    description: "GET /api/bulk/syncs/{id}/error-handling finds only the most recently created bulk sync (a cache of one); an earlier one is answered 404 once another was created (Spec › GET /api/bulk/syncs/{id}/error-handling: 404 for an 'unknown id' only).",
    apply({ store }) {
      wrapStore(store, 'bulkErrorHandling', (original) => (id) => {
        const latest = [...store.bulkSyncs.keys()].at(-1);
        return id === latest ? original(id) : undefined;
      });
    },
  },
  {
    name: 'ho2-bulk-eh-second-read-404',
    breaks: ['EHB-001', 'EHB-003', 'VER-001'],
    description: "A second GET /api/bulk/syncs/{id}/error-handling of the same sync is answered 404 (an entry removed on first read); reads change nothing (Spec › GET: 404 for an 'unknown id' only).",
    apply({ store }) {
      const read = new Set<string>();
      wrapStore(store, 'bulkErrorHandling', (original) => (id) => {
        const settings = original(id);
        if (!settings) return undefined;
        if (read.has(id)) return undefined;
        read.add(id);
        return settings;
      });
    },
  },
  {
    name: 'ho2-put-false-ignored',
    breaks: ['EHS-009'],
    description: "PUT /api/syncs/{id}/error-handling treats false like an omitted field (a truthiness test), so a switch once true cannot be turned off (Spec › PUT Body: booleans; Rules 1: only 'A field that is omitted stays unchanged').",
    apply({ app }) {
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const body = bodyOf(request);
        for (const field of BOOLEAN_FIELDS) if (body[field] === false) delete body[field];
      });
    },
  },
  {
    name: 'ho2-put-subscribers-merge',
    breaks: ['EHS-002'],
    description: "A non-empty subscribers list is merged into a non-empty current list instead of replacing it (an empty list still clears) (Spec › PUT Rules 2: 'subscribers replaces the whole current list').",
    apply({ store }) {
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const current = store.syncErrorHandling(id);
        if (current && patch.subscribers && patch.subscribers.length > 0 && current.subscribers.length > 0) {
          return original(id, { ...patch, subscribers: [...new Set([...current.subscribers, ...patch.subscribers])] });
        }
        return original(id, patch);
      });
    },
  },
  {
    name: 'ho2-put-subscribers-cap-10',
    breaks: ['EHS-002'],
    description: "PUT /api/syncs/{id}/error-handling keeps only the first 10 subscribers of a longer list, without an error (Spec › PUT Rules 2: 'subscribers replaces the whole current list'; Limits: no such limit shown).",
    apply({ app }) {
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const body = bodyOf(request);
        if (Array.isArray(body.subscribers) && body.subscribers.length > 10) body.subscribers = body.subscribers.slice(0, 10);
      });
    },
  },
  {
    name: 'ho2-put-answers-previous',
    breaks: ['EHS-001', 'EHS-002', 'EHS-003', 'EHS-004', 'EHS-009', 'EHS-010', 'EHS-011'],
    description: "PUT /api/syncs/{id}/error-handling stores the update but answers the settings as they were before it (Spec › PUT Response 200: '{ data: SyncErrorHandling }', the settings after the update).",
    apply({ store }) {
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const before: SyncErrorHandling | undefined = store.syncErrorHandling(id);
        const after = original(id, patch);
        return after && before;
      });
    },
  },
  {
    name: 'ho2-put-charset-415',
    breaks: ['EHS-005'],
    description: "PUT /api/syncs/{id}/error-handling refuses Content-Type 'application/json; charset=utf-8' (415), taking only the bare media type (Spec › PUT Body (application/json); parameters do not change the media type, RFC 9110 §8.3.1).",
    apply({ app }) {
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const type = request.headers['content-type'];
        if (type !== undefined && type.trim().toLowerCase() !== 'application/json') {
          throw new ApiError('unsupported_media_type', 'bodies must be sent as Content-Type: application/json');
        }
      });
    },
  },
];

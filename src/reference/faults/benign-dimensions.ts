import { randomUUID } from 'node:crypto';
import { connectionKind } from '../connection-kinds.ts';
import { fieldError } from '../errors.ts';
import { isObject } from '../validation.ts';
import { isRoute, ROUTES, type Fault } from './fault.ts';

// Conforming-but-unusual behaviour along the dimensions the checks walk (a stage that ends sooner,
// an answer whose 2xx differs by version): the checks must pass under each.

export const dimensionVariants: Fault[] = [
  {
    name: 'schema-stage-ends-before-repeat',
    breaks: [],
    description:
      'A new connection\'s "No schemas found" stage lasts 1 ms and is held for one answer only: a bulk sync repeated at once after the first "No schemas found" is accepted (the spec: the caller repeats until a 2xx).',
    apply: ({ app, store, config }) => {
      config.schemaCacheDelayMs = 1;
      // A database still being discovered would keep the stage by itself: its discovery is waited for first.
      app.addHook('preValidation', async (request) => {
        if (!isRoute(request, 'POST', ROUTES.bulkSyncs) || !isObject(request.body)) return;
        const source = store.getConnection(String(request.body.source_connection_id));
        for (let waited = 0; source?.status === 'pending' && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      });
      app.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode !== 400 || !isRoute(request, 'POST', ROUTES.bulkSyncs) || !isObject(request.body)) return payload;
        const source = store.getConnection(String(request.body.source_connection_id));
        if (source && typeof payload === 'string' && payload.includes('"schemas_not_cached"')) source.noSchemasOwed = 0;
        return payload;
      });
    },
  },
  {
    name: 'bulk-schemas-repeat-refused',
    breaks: [],
    description: 'POST /api/bulk/syncs answers a schemas list that names an object twice 400 validation_error on the repeat (the spec does not say whether a name may repeat); lists of distinct names are taken.',
    apply: ({ app }) =>
      app.addHook('preValidation', async (request) => {
        const schemas = isRoute(request, 'POST', ROUTES.bulkSyncs) && isObject(request.body) ? request.body.schemas : undefined;
        if (!Array.isArray(schemas)) return;
        const at = schemas.findIndex((name, i) => schemas.indexOf(name) !== i);
        if (at >= 0) throw fieldError(`/schemas/${at}`, 'names an object already named');
      }),
  },
  {
    name: 'creation-request-size-limit',
    breaks: [],
    description: 'POST /api/connections and POST /api/bulk/syncs answer a body of more than 1200 bytes 413 Content Too Large (a request size limit, which the spec leaves open), before reading it.',
    apply: ({ app }) =>
      app.addHook('onRequest', async (request, reply) => {
        const creation = isRoute(request, 'POST', ROUTES.connections) || isRoute(request, 'POST', ROUTES.bulkSyncs);
        if (creation && Number(request.headers['content-length'] ?? 0) > 1200) return reply.code(413).send({ key: 'request_too_large', message: 'The request body is larger than 1200 bytes.', metadata: null, status: 413 });
      }),
  },
  {
    name: 'connection-201-without-version',
    breaks: [],
    description: 'POST /api/connections without X-Service-Version answers 201 where the default version answers 200 (both a 2xx: the spec shows no creation status).',
    apply: ({ app }) =>
      app.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode === 200 && isRoute(request, 'POST', ROUTES.connections) && request.headers['x-service-version'] === undefined) reply.code(201);
        return payload;
      }),
  },
  {
    name: 'json-under-any-content-type',
    breaks: [],
    description: 'A body under any Content-Type other than application/json (text/plain), or under none, is read as JSON: the creations take the valid JSON whatever its label (the spec names application/json and shows no refusal of another label).',
    apply: ({ app }) =>
      app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
        try {
          done(null, JSON.parse(String(body)));
        } catch {
          done(fieldError('', 'is not valid JSON'), undefined);
        }
      }),
  },
  {
    name: 'url-limit-414',
    breaks: [],
    description: 'A request whose URL is longer than 512 characters is answered 414 URI Too Long, in the error shape (a URL length limit, which the spec leaves open; an id of 1,000 characters is refused before it is read).',
    apply: ({ app }) =>
      app.addHook('onRequest', async (request, reply) => {
        if (request.url.length > 512) return reply.code(414).send({ key: 'uri_too_long', message: 'The URL is longer than 512 characters.', metadata: null, status: 414 });
      }),
  },
  {
    name: 'unknown-type-accepted',
    breaks: [],
    description: 'POST /api/connections takes a type no kind has as a generic connection (200 with an id): the list of types is not shown, and the spec requires no refusal of a shape-valid type.',
    apply: ({ app }) =>
      app.addHook('preValidation', async (request, reply) => {
        if (!isRoute(request, 'POST', ROUTES.connections) || !isObject(request.body) || typeof request.body.type !== 'string' || connectionKind(request.body.type)) return;
        return reply.code(200).send({ data: { id: randomUUID(), name: request.body.name, type: { id: request.body.type } } });
      }),
  },
];

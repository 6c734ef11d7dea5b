import type { IncomingMessage } from 'node:http';
import { editErrorBody, isRoute, ROUTES, type Fault } from './fault.ts';

const MALFORMED_ESCAPE = /%(?![0-9a-f]{2})/i;
const UUID_IN_PATH = /\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\/|$)/i;

export const errorBodyFaults: Fault[] = [
  {
    name: 'error-status-as-string',
    breaks: ['ERR-001', 'BULK-001'],
    description: 'Every error body carries status as a string ("404") instead of an integer.',
    apply: ({ app }) =>
      editErrorBody(app, (body) => {
        body.status = String(body.status);
      }),
  },
  {
    name: 'error-status-mismatch',
    breaks: ['ERR-002', 'BULK-001'],
    description: 'Every error body carries status 500, whatever the HTTP status of the answer.',
    apply: ({ app }) =>
      editErrorBody(app, (body) => {
        body.status = 500;
      }),
  },
  {
    name: 'error-status-mismatch-on-404',
    breaks: ['ERR-002'],
    description: 'A 404 error body carries status 400; every other error body is right.',
    apply: ({ app }) =>
      editErrorBody(app, (body, reply) => {
        if (reply.statusCode === 404) body.status = 400;
      }),
  },
  {
    name: 'error-status-as-string-on-uuid-404',
    breaks: ['ERR-001'],
    description: 'A 404 for an id shaped like a UUID (the path a lookup takes, not a parse) carries status as a string ("404"); every other error body is right.',
    apply: ({ app }) =>
      editErrorBody(app, (body, reply) => {
        if (reply.statusCode === 404 && UUID_IN_PATH.test(reply.request.url)) body.status = String(body.status);
      }),
  },
  {
    name: 'error-content-type-text-on-403',
    breaks: ['ERR-003'],
    description: 'A 403 answer is labelled Content-Type: text/plain; every other error answer is application/json.',
    apply: ({ app }) =>
      editErrorBody(app, (_body, reply) => {
        if (reply.statusCode === 403) reply.header('content-type', 'text/plain; charset=utf-8');
      }),
  },
  {
    name: 'error-content-type-text',
    breaks: ['ERR-003'],
    description: 'Every error answer is labelled Content-Type: text/plain (the body is the same JSON text).',
    apply: ({ app }) =>
      editErrorBody(app, (_body, reply) => {
        reply.header('content-type', 'text/plain; charset=utf-8');
      }),
  },
  {
    name: 'error-metadata-pairs',
    breaks: ['ERR-001'],
    description: 'A non-null error metadata map is written as a list of {key, value} pairs (metadata null stays null).',
    apply: ({ app }) =>
      editErrorBody(app, (body) => {
        if (body.metadata && typeof body.metadata === 'object' && !Array.isArray(body.metadata)) {
          body.metadata = Object.entries(body.metadata).map(([key, value]) => ({ key, value }));
        }
      }),
  },
  {
    name: 'unparsable-body-500',
    breaks: ['ERR-004'],
    description: 'A body that is not valid JSON, or empty under Content-Type: application/json, is answered 500 internal_error: the parser\'s error escapes as a server error.',
    apply: ({ app }) =>
      editErrorBody(app, (body, reply) => {
        if (body.key !== 'invalid_json') return;
        reply.code(500);
        Object.assign(body, { key: 'internal_error', message: 'internal error in the reference service', metadata: null, status: 500 });
      }),
  },
  {
    name: 'other-media-type-parser-fails',
    breaks: ['ERR-004'],
    description: 'A body under any Content-Type other than application/json, or under none, goes to a catch-all parser that fails: 500 internal_error instead of a 4xx (or taking the JSON).',
    apply: ({ app }) => app.addContentTypeParser('*', { parseAs: 'string' }, (_request, _body, done) => done(new Error('no parser for this body'))),
  },
  {
    name: 'large-body-500',
    breaks: ['ERR-004'],
    description: 'A body over 1 MiB (by its Content-Length) fails the buffer it is read into: 500 internal_error instead of 413, 400 or taking it.',
    apply: ({ app }) =>
      app.addHook('preParsing', async (request) => {
        if (Number(request.headers['content-length'] ?? 0) > 1024 * 1024) throw new RangeError('request buffer overflow');
      }),
  },
  {
    name: 'malformed-url-500',
    breaks: ['ERR-005'],
    description: 'A path with a malformed percent-escape (%zz) reaches the service\'s own decoding of the path, which throws (URIError): 500 internal_error instead of a 4xx.',
    apply: ({ app }) => {
      // Ahead of fastify's router, which refuses such a URL itself: the escape is made valid so
      // that the request reaches the hooks, marked, and the "own decoding" fails there.
      app.server.prependListener('request', (raw: IncomingMessage) => {
        if (!MALFORMED_ESCAPE.test(raw.url ?? '')) return;
        raw.url = raw.url!.replace(new RegExp(MALFORMED_ESCAPE.source, 'gi'), '%25');
        raw.headers['x-dssc-malformed-url'] = '1';
      });
      app.addHook('onRequest', async (request) => {
        if (request.headers['x-dssc-malformed-url'] !== undefined) throw new URIError('URI malformed');
      });
    },
  },
  {
    name: 'long-id-500',
    breaks: ['ERR-005'],
    description: 'On the error-handling endpoints an id longer than 255 characters fails the lookup (a varchar(255) column): 500 internal_error instead of 404.',
    apply: ({ app }) =>
      app.addHook('preHandler', async (request) => {
        const onErrorHandling = isRoute(request, 'GET', ROUTES.bulkErrorHandling) || isRoute(request, 'PUT', ROUTES.syncErrorHandling);
        if (onErrorHandling && ((request.params as { id?: string }).id ?? '').length > 255) throw new Error('value too long for type character varying(255)');
      }),
  },
];

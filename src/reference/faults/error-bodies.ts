import { editErrorBody, type Fault } from './fault.ts';

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
];

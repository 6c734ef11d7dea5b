import type { FastifyRequest } from 'fastify';
import { DEFAULT_BULK_ERROR_HANDLING, DEFAULT_SYNC_ERROR_HANDLING } from '../store.ts';
import { isObject } from '../validation.ts';
import { editSuccess, ROUTES, wrapStore, type Fault } from './fault.ts';

// Benign variants of the error-handling answers: "All fields are optional in the response"
// (Spec › SyncErrorHandling, BulkSyncErrorHandling), so an answer may leave any field out. A field
// left out is not reported, not changed: the reference's reads (the GET of each resource) still
// show every field, which is where a check confirms a rule the answer does not show.

type Data = Record<string, unknown>;

const onErrorHandling = (request: FastifyRequest) =>
  request.routeOptions.url === ROUTES.syncErrorHandling || request.routeOptions.url === ROUTES.bulkErrorHandling;

/** Edits `data` of a successful error-handling PUT's answer (either resource); the GETs stay whole. */
function editPutAnswers(edit: (data: Data, request: FastifyRequest) => Data): Fault['apply'] {
  return ({ app }) =>
    app.addHook('preSerialization', async (request, reply, payload: unknown) => {
      if (reply.statusCode >= 400 || !onErrorHandling(request) || request.method !== 'PUT') return payload;
      if (!isObject(payload) || !isObject(payload.data)) return payload;
      return { ...payload, data: edit(payload.data, request) };
    });
}

/** Whether settings are the defaults: nothing was ever set, or everything was set back. */
const isDefault = (data: Data, request: FastifyRequest) => {
  const defaults: Data = request.routeOptions.url === ROUTES.bulkErrorHandling ? DEFAULT_BULK_ERROR_HANDLING : DEFAULT_SYNC_ERROR_HANDLING;
  return Object.keys(defaults).every((f) => JSON.stringify(data[f]) === JSON.stringify(defaults[f]));
};

/** Go's `omitempty`: false, 0, null and the empty list are left out of the JSON. */
const isEmpty = (v: unknown) => v === false || v === 0 || v === null || (Array.isArray(v) && v.length === 0);

export const answerVariants: readonly Fault[] = [
  {
    name: 'put-answers-sent-fields-only',
    breaks: [],
    description:
      'The error-handling PUTs (model sync, and the bulk sync extension) answer only the fields the body carried, with their values after the update: PUT {} is answered {"data":{}} (all fields are optional in the response). The reads show every field.',
    apply: editPutAnswers((data, request) => {
      const sent = isObject(request.body) ? request.body : {};
      return Object.fromEntries(Object.entries(data).filter(([field]) => field in sent));
    }),
  },
  {
    name: 'put-answers-omitempty',
    breaks: [],
    description:
      'The error-handling PUTs (model sync, and the bulk sync extension) leave out of their answer the fields whose value is false, 0, null or an empty list, sent or not, as a Go server serializing with omitempty does (all fields are optional in the response). The reads show every field.',
    apply: editPutAnswers((data) => Object.fromEntries(Object.entries(data).filter(([, v]) => !isEmpty(v)))),
  },
  {
    name: 'reads-no-data-at-defaults',
    breaks: [],
    description:
      'The error-handling reads (the spec\'s GET of a bulk sync, the model-sync GET extension) answer 200 {} without data while the settings are the defaults (no subscribers, no threshold, every switch off), as a service that stores no settings row until one differs does ("data is optional").',
    apply: ({ app }) =>
      app.addHook('preSerialization', async (request, reply, payload: unknown) => {
        if (reply.statusCode >= 400 || !onErrorHandling(request) || request.method !== 'GET') return payload;
        return isObject(payload) && isObject(payload.data) && isDefault(payload.data, request) ? {} : payload;
      }),
  },
  {
    name: 'answers-unusual-addresses',
    breaks: [],
    description:
      'Answers hold addresses a narrow pattern refuses but the spec\'s words take. An OAuth kind\'s auth_url has its scheme in capitals and a Unicode host and query (HTTPS://login.exämple.test/…&hint=Grüße: a URL a browser opens; the scheme is case-insensitive, RFC 3986 §3.1). A new bulk or model sync starts with two subscribers, the creator\'s internationalised address and a local alias (jörg@müller.example, ops@localhost: e-mail addresses, RFC 6531, RFC 5321).',
    apply: ({ app, store }) => {
      editSuccess(app, 'POST', ROUTES.connections, (data) => {
        if (typeof data.auth_url !== 'string') return;
        const url = new URL(data.auth_url);
        data.auth_url = `HTTPS://login.exämple.test${url.pathname}${url.search}${url.search ? '&' : '?'}hint=Grüße`;
      });
      const defaults = ['jörg@müller.example', 'ops@localhost'];
      wrapStore(store, 'addBulkSync', (original) => (input) => {
        const sync = original(input);
        sync.errorHandling.subscribers = [...defaults];
        return sync;
      });
      wrapStore(store, 'addModelSync', (original) => (input) => {
        const sync = original(input);
        sync.errorHandling.subscribers = [...defaults];
        return sync;
      });
    },
  },
];

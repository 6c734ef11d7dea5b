import { randomUUID } from 'node:crypto';
import { validator } from '../../schemas.ts';
import { connectionKind } from '../connection-kinds.ts';
import { ApiError, fieldError } from '../errors.ts';
import { isObject } from '../validation.ts';
import { beforeRoute, editErrorBody, editSuccess, isRoute, ROUTES, type Fault } from './fault.ts';

/** A body POST /api/connections would refuse for its shape (base schema, or the kind's configuration). */
function badShape(body: unknown): boolean {
  if (!validator('connection-request.schema.json')(body)) return true;
  const kind = connectionKind((body as { type: string }).type);
  return kind !== undefined && !validator(kind.configurationSchema)((body as { configuration: unknown }).configuration);
}

export const connectionFaults: Fault[] = [
  {
    name: 'unknown-type-500',
    breaks: ['CONN-008'],
    description: 'POST /api/connections reads the kind\'s configuration rules before checking that the type names a kind: a type no kind has is answered 500 internal_error instead of 4xx.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const type = isObject(request.body) ? request.body.type : undefined;
        if (typeof type === 'string' && connectionKind(type) === undefined) throw new TypeError("Cannot read properties of undefined (reading 'configurationSchema')");
      }),
  },
  {
    name: 'unknown-type-refusal-as-500',
    breaks: ['CONN-008'],
    description: 'The refusal of a type no kind has is sent with status 500 (body status 500): the lookup failure is mapped as a server error.',
    apply: ({ app }) =>
      editErrorBody(app, (body, reply) => {
        // The unknown-kind refusal only (it lists the known types), not a type of the wrong JSON type.
        const metadata = body.metadata as { field?: unknown; known?: unknown } | null;
        if (reply.statusCode !== 400 || !isRoute(reply.request, 'POST', ROUTES.connections) || metadata?.field !== '/type' || !Array.isArray(metadata.known)) return;
        reply.code(500);
        body.status = 500;
      }),
  },
  {
    name: 'no-auth-url',
    breaks: ['CONN-002', 'CONN-007'],
    description: 'POST /api/connections answers the OAuth kinds (salesforce, hubspot) without data.auth_url.',
    apply: ({ app }) =>
      editSuccess(app, 'POST', ROUTES.connections, (data) => {
        delete data.auth_url;
      }),
  },
  {
    name: 'reject-empty-configuration',
    // CONN-007 too: the marketing kind is asked with redirect_url and configuration {}.
    breaks: ['CONN-001', 'CONN-002', 'CONN-003', 'CONN-007'],
    description: 'POST /api/connections answers a hubspot connection with configuration {} 400 validation_error.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const body = request.body;
        if (isObject(body) && body.type === 'hubspot' && isObject(body.configuration) && Object.keys(body.configuration).length === 0) {
          throw fieldError('/configuration', 'must not be empty');
        }
      }),
  },
  {
    name: 'accept-bad-connection-shape',
    breaks: ['CONN-004'],
    description:
      'POST /api/connections answers 200 with a made-up id (and stores nothing) for a body missing name, type or configuration, or with a field of the wrong type.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request, reply) => {
        if (!badShape(request.body)) return;
        const body = isObject(request.body) ? request.body : {};
        return reply.send({ data: { id: randomUUID(), name: body.name, type: body.type, configuration: body.configuration } });
      }),
  },
  {
    name: 'echo-secrets',
    breaks: ['CONN-005'],
    description: 'POST /api/connections echoes password and cloud_secret_access_key in data.configuration.',
    apply: ({ app }) =>
      editSuccess(app, 'POST', ROUTES.connections, (data, request) => {
        const sent = isObject(request.body) ? request.body.configuration : undefined;
        const answered = data.configuration;
        if (!isObject(sent) || !isObject(answered)) return;
        for (const field of ['password', 'cloud_secret_access_key']) {
          if (Object.hasOwn(sent, field)) answered[field] = sent[field];
        }
      }),
  },
  {
    name: 'connection-port-numeric-string',
    breaks: ['CONN-004'],
    description: 'POST /api/connections takes a relational database port written as a string of digits ("5432", "1") as that number.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const configuration = isObject(request.body) ? request.body.configuration : undefined;
        if (isObject(configuration) && typeof configuration.port === 'string' && /^\d+$/.test(configuration.port)) configuration.port = Number(configuration.port);
      }),
  },
  {
    name: 'echo-secrets-base64',
    breaks: ['CONN-005'],
    description: 'POST /api/connections answers a base64 "fingerprint" of the password and cloud_secret_access_key it was sent (data.configuration.<field>_b64).',
    apply: ({ app }) =>
      editSuccess(app, 'POST', ROUTES.connections, (data, request) => {
        const sent = isObject(request.body) ? request.body.configuration : undefined;
        const answered = data.configuration;
        if (!isObject(sent) || !isObject(answered)) return;
        for (const field of ['password', 'cloud_secret_access_key']) {
          if (typeof sent[field] === 'string') answered[`${field}_b64`] = Buffer.from(sent[field]).toString('base64');
        }
      }),
  },
  {
    name: 'connection-id-elsewhere',
    breaks: ['CONN-006'],
    description: 'POST /api/connections puts the new id at data.connection_id instead of data.id.',
    apply: ({ app }) =>
      editSuccess(app, 'POST', ROUTES.connections, (data) => {
        data.connection_id = data.id;
        delete data.id;
      }),
  },
  {
    name: 'redirect-url-query-refused',
    breaks: ['CONN-007'],
    description: 'POST /api/connections refuses a redirect_url with a port or a query string (400 on /redirect_url); a plain https URL is accepted.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const body = request.body;
        if (isObject(body) && typeof body.redirect_url === 'string' && /:\d+\/|\?/.test(body.redirect_url.replace(/^https?:\/\//, ''))) {
          throw fieldError('/redirect_url', 'must be a plain https URL');
        }
      }),
  },
  {
    name: 'auth-url-relative',
    breaks: ['CONN-002', 'CONN-007'],
    description: 'The auth_url of an OAuth kind is a path on the service (/oauth/…) instead of an absolute URL a person can open.',
    apply: ({ app }) =>
      editSuccess(app, 'POST', ROUTES.connections, (data) => {
        if (typeof data.auth_url === 'string') data.auth_url = new URL(data.auth_url).pathname + new URL(data.auth_url).search;
      }),
  },
  {
    name: 'auth-url-dropped-for-marketing-with-redirect',
    breaks: ['CONN-007'],
    description: 'A marketing (hubspot) connection created with redirect_url is answered without auth_url; without redirect_url, and for the CRM kind, auth_url is there.',
    apply: ({ app }) =>
      editSuccess(app, 'POST', ROUTES.connections, (data, request) => {
        const body = request.body;
        if (isObject(body) && body.type === 'hubspot' && body.redirect_url !== undefined) delete data.auth_url;
      }),
  },
  {
    name: 'object-store-config-types-lenient',
    breaks: ['CONN-004'],
    description:
      'POST /api/connections takes any JSON value for an object store (s3) configuration field, written as its JSON text (1 as "1", null as "null"); the other kinds are validated as specified.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const body = request.body;
        if (!isObject(body) || body.type !== 's3' || !isObject(body.configuration)) return;
        const configuration = body.configuration;
        for (const [field, value] of Object.entries(configuration)) if (typeof value !== 'string') configuration[field] = JSON.stringify(value);
      }),
  },
  {
    name: 'crm-domain-null-accepted',
    breaks: ['CONN-004'],
    description: 'POST /api/connections takes a CRM (salesforce) connection with configuration.domain null as the default login domain instead of answering 400.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const body = request.body;
        if (isObject(body) && body.type === 'salesforce' && isObject(body.configuration) && body.configuration.domain === null) body.configuration.domain = 'https://login.salesforce.com';
      }),
  },
  {
    name: 'marketing-name-defaulted',
    breaks: ['CONN-004'],
    description: 'POST /api/connections names a marketing (hubspot) connection sent without name, or with name null, "HubSpot" instead of answering 400; the other kinds require it.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const body = request.body;
        if (isObject(body) && body.type === 'hubspot' && (body.name === undefined || body.name === null)) body.name = 'HubSpot';
      }),
  },
  {
    name: 'connection-name-past-255-refused',
    breaks: ['CONN-001'],
    description: 'POST /api/connections answers a connection whose name is longer than 255 characters 400 validation_error on /name (a VARCHAR(255) column checked up front); names up to 255 are taken.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const body = request.body;
        if (isObject(body) && typeof body.name === 'string' && [...body.name].length > 255) throw fieldError('/name', 'must be at most 255 characters');
      }),
  },
  {
    name: 'crm-redirect-url-list-dropped',
    breaks: ['CONN-004'],
    description: 'POST /api/connections drops a CRM (salesforce) redirect_url that is a list or an object and creates the connection, instead of answering 400; a number or null there is refused, and the other kinds are validated as specified.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const body = request.body;
        if (isObject(body) && body.type === 'salesforce' && typeof body.redirect_url === 'object' && body.redirect_url !== null) delete body.redirect_url;
      }),
  },
  {
    name: 'connection-port-edge-refused',
    breaks: ['CONN-001'],
    description: 'POST /api/connections answers a relational database (postgresql) connection on port 65535 400 validation_error (an off-by-one range check: ports below 65535 are taken).',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const configuration = isObject(request.body) ? request.body.configuration : undefined;
        if (isObject(request.body) && request.body.type === 'postgresql' && isObject(configuration) && configuration.port === 65535) throw fieldError('/configuration/port', 'must be below 65535');
      }),
  },
  {
    name: 'connection-refuses-json-charset',
    breaks: ['CONN-001'],
    description: 'POST /api/connections answers a body labelled Content-Type: application/json with any charset parameter 415 (a media-type check that compares the whole header with "application/json").',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        if ((request.headers['content-type'] ?? '').trim() !== 'application/json') throw new ApiError('unsupported_media_type', 'bodies must be sent as Content-Type: application/json');
      }),
  },
  {
    name: 'webhook-connection-refuses-json-charset',
    breaks: ['CONN-001'],
    description: 'POST /api/connections answers a webhook connection labelled Content-Type: application/json with a charset parameter 415 (the webhook kind\'s own handler compares the whole header); every other kind takes it.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const webhook = isObject(request.body) && request.body.type === 'webhook';
        if (webhook && (request.headers['content-type'] ?? '').trim() !== 'application/json') throw new ApiError('unsupported_media_type', 'webhook connections must be sent as Content-Type: application/json');
      }),
  },
];

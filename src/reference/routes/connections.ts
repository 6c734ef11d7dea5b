import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SCHEMA_STAGE_HELD_ANSWERS, type ReferenceConfig } from '../config.ts';
import { CONNECTION_KINDS, connectionKind, type ConnectionKind } from '../connection-kinds.ts';
import type { Discovery } from '../discovery.ts';
import { ApiError, fieldError } from '../errors.ts';
import { isMadeUpHost } from '../source-db.ts';
import type { Connection, Store } from '../store.ts';
import { requireShape } from '../validation.ts';

interface ConnectionRequest {
  name: string;
  type: string;
  configuration: Record<string, unknown>;
  redirect_url?: string;
}

/** Where the reference sends people to authorize an OAuth connection; .invalid never resolves (RFC 2606). */
export const AUTHORIZATION_HOST = 'https://auth.reference.invalid';

/** Spec › POST /api/connections. The answer's envelope ({data: {...}}) is the real service's. */
export function connectionRoutes(app: FastifyInstance, store: Store, config: ReferenceConfig, discovery: Discovery): void {
  app.post('/api/connections', async (request) => {
    requireShape('connection-request.schema.json', request.body);
    const body = request.body as ConnectionRequest;
    const kind = connectionKind(body.type);
    if (!kind) {
      const known = Object.keys(CONNECTION_KINDS);
      throw fieldError('/type', `is not a known connection type (known: ${known.join(', ')})`, { known });
    }
    requireConfiguration(kind, body.configuration);

    const generated = generatedSettings(kind);
    const createdAt = Date.now();
    const real = isRealDatabase(kind, body.configuration);
    const connection = store.addConnection({
      name: body.name,
      type: body.type,
      configuration: { ...body.configuration, ...generated },
      redirectUrl: body.redirect_url ?? null,
      // A real database caches once discovery has listed its tables (discovery.ts); the others after the delay.
      schemasReadyAt: real ? Infinity : createdAt + config.schemaCacheDelayMs,
      // The stage is seen, and seen again by a repeat, however late the first bulk syncs come (a caller on a busy machine).
      noSchemasOwed: config.holdSchemaStage && config.schemaCacheDelayMs > 0 ? SCHEMA_STAGE_HELD_ANSWERS : 0,
      sourceObjects: real ? [] : kind.sourceObjects,
      status: real ? 'pending' : 'healthy',
      statusError: null,
    });
    // The answer goes out at once; nothing waits on discovery.
    if (real) discovery.discover(connection, createdAt);
    return { data: { ...creationAnswer(connection, kind, generated), ...statusFields(connection) } };
  });

  /** Extension: a connection as it is now (the real service's GET; no auth_url, no generated secret), with its discovery status. */
  app.get<{ Params: { id: string } }>('/api/connections/:id', async (request) => {
    const connection = store.getConnection(request.params.id);
    const kind = connection && connectionKind(connection.type);
    if (!connection || !kind) throw new ApiError('not_found', `no connection with id ${request.params.id}`, { id: request.params.id });
    const answer = creationAnswer(connection, kind, {});
    delete answer.auth_url;
    const hidden = new Set(Object.keys(generatedSettings(kind)));
    answer.configuration = Object.fromEntries(Object.entries(answer.configuration as object).filter(([field]) => !hidden.has(field)));
    return { data: { ...answer, ...statusFields(connection) } };
  });
}

/**
 * A postgresql connection is really connected to, unless its hostname is under a name RFC 6761
 * reserves (.test, .invalid, .example, example.com/net/org; source-db.ts): such made-up
 * configurations get the kind's fixed source objects, as every other kind does (README › Connections).
 */
function isRealDatabase(kind: ConnectionKind, configuration: Record<string, unknown>): boolean {
  return kind.specKind === 'relationalDatabase' && !isMadeUpHost(configuration.hostname);
}

/** The real service's status fields; status_error is one line, never a secret. */
function statusFields(connection: Connection): { status: string; status_error: string | null } {
  return { status: connection.status, status_error: connection.statusError };
}

/** The schema's configuration, plus the kind's extra settings (the real service's), each of its JSON type. */
function requireConfiguration(kind: ConnectionKind, configuration: Record<string, unknown>): void {
  const rest: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(configuration)) {
    const type = Object.hasOwn(kind.extraSettings, field) ? kind.extraSettings[field] : undefined;
    if (type === undefined) rest[field] = value;
    else if (typeof value !== type) throw fieldError(`/configuration/${field}`, `must be a ${type}`);
  }
  requireShape(kind.configurationSchema, rest, '/configuration');
}

/** Settings the service makes up itself. A webhook's secret is the bearer credential of its deliveries (Spec › Authentication 5). */
function generatedSettings(kind: ConnectionKind): Record<string, string> {
  return kind.specKind === 'webhook' ? { secret: randomBytes(32).toString('base64url') } : {};
}

function creationAnswer(connection: Connection, kind: ConnectionKind, generated: Record<string, string>): Record<string, unknown> {
  const configuration = Object.fromEntries(Object.entries(connection.configuration).filter(([field]) => !kind.secretFields.includes(field)));
  const answer: Record<string, unknown> = {
    id: connection.id,
    name: connection.name,
    type: { id: connection.type, name: kind.name },
    // Generated secrets are shown this once, so the caller can give them to the receiver.
    configuration: { ...configuration, ...generated },
  };
  if (connection.redirectUrl !== null) answer.redirect_url = connection.redirectUrl;
  if (kind.oauth) answer.auth_url = authUrl(connection);
  return answer;
}

function authUrl(connection: Connection): string {
  const url = new URL(`${AUTHORIZATION_HOST}/oauth/${connection.type}/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('connection_id', connection.id);
  url.searchParams.set('state', randomBytes(16).toString('base64url'));
  // Spec › Connection: redirect_url 'Changes where the browser goes after OAuth authorization.'
  if (connection.redirectUrl !== null) url.searchParams.set('redirect_uri', connection.redirectUrl);
  return url.href;
}

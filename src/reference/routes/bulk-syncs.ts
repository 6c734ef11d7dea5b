import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReferenceConfig } from '../config.ts';
import { connectionKind } from '../connection-kinds.ts';
import type { Discovery } from '../discovery.ts';
import { ApiError, fieldError } from '../errors.ts';
import type { BulkSync, Connection, Store } from '../store.ts';
import { isObject, requireShape } from '../validation.ts';
import { otherSpelling, type VersionRules } from '../versions.ts';

interface BulkSyncRequest {
  name: string;
  source_connection_id: string;
  destination_connection_id: string;
  mode: string;
  schedule: { frequency: string } & Record<string, unknown>;
  schemas?: string[];
  destination_configuration?: Record<string, unknown>;
  dest_configuration?: Record<string, unknown>;
}

/** Bulk sync modes: the spec's replicate and the real service's snapshot. */
export const BULK_MODES: readonly string[] = ['replicate', 'snapshot'];

/** Schedule frequencies: the spec's manual and the rest of the real service's (ScheduleFrequency). */
export const FREQUENCIES: readonly string[] = ['manual', 'continuous', 'hourly', 'daily', 'weekly', 'custom', 'builder', 'runafter', 'multi', 'dbtcloud'];

export function versionRules(config: ReferenceConfig, request: FastifyRequest): VersionRules {
  const rules = config.versions.get(request.serviceVersion);
  // The onRequest hook only lets served versions through, so this is a bug, not bad input.
  if (!rules) throw new Error(`no rules for version ${request.serviceVersion}`);
  return rules;
}

/**
 * Spec › POST /api/bulk/syncs. Checks run from what needs nothing to what needs the most: the
 * body's shape and spelling, the connections it names, the destination's settings, then the
 * source's schema cache, and last the object names, which only the cache can vouch for. Nothing
 * is stored before every check passed, so a refused request is safe to repeat (Rules 1).
 */
export function bulkSyncRoutes(app: FastifyInstance, store: Store, config: ReferenceConfig, discovery: Discovery): void {
  app.post('/api/bulk/syncs', async (request) => {
    const rules = versionRules(config, request);
    rejectOtherSpelling(request.body, rules, request.serviceVersion);
    requireShape(rules.bulkSyncSchema, request.body);
    const body = request.body as BulkSyncRequest;

    // Spec › Bulk sync shows replicate and manual, other values 'not shown': the real service's are taken.
    if (!BULK_MODES.includes(body.mode)) throw fieldError('/mode', `must be one of ${BULK_MODES.join(', ')}`, { allowed: [...BULK_MODES] });
    if (!FREQUENCIES.includes(body.schedule.frequency)) {
      throw fieldError('/schedule/frequency', `must be one of ${FREQUENCIES.join(', ')}`, { allowed: [...FREQUENCIES] });
    }

    const source = existing(store, body.source_connection_id, '/source_connection_id');
    const destination = existing(store, body.destination_connection_id, '/destination_connection_id');
    // The kind decides (a discovered database may hold no tables yet, and is still a source).
    if ((connectionKind(source.type)?.sourceObjects.length ?? 0) === 0) {
      throw fieldError('/source_connection_id', `names a ${source.type} connection, which cannot be a bulk sync source`);
    }
    const settings = body[rules.destinationField] ?? null;
    checkDestinationSettings(destination, settings, rules);

    if (source.noSchemasOwed > 0 || Date.now() < source.schemasReadyAt) {
      // Spec › Errors › Specific cases 1: status 400, 'No schemas found', try again, metadata null.
      // Once answered twice, the stage ends by time alone (Rules 1: the caller repeats until a 2xx).
      source.noSchemasOwed = Math.max(0, source.noSchemasOwed - 1);
      throw new ApiError(
        'schemas_not_cached',
        `No schemas found for connection ${source.id}; the schema cache is still being built, try again in a few seconds.`,
      );
    }
    // A table created after discovery: the database is asked again before the name is refused.
    if (body.schemas?.some((name) => !source.sourceObjects.includes(name))) await discovery.refresh(source);
    const schemas = chosenObjects(source, body.schemas);

    const sync = store.addBulkSync({
      name: body.name,
      sourceConnectionId: source.id,
      destinationConnectionId: destination.id,
      mode: body.mode,
      schedule: body.schedule,
      schemas,
      destinationSettings: settings,
    });
    return { data: bulkSyncAnswer(sync, rules) };
  });
}

/** Spec › Versioning 3: each version has one spelling; the other one is named in the answer, not ignored. */
function rejectOtherSpelling(body: unknown, rules: VersionRules, version: string): void {
  const wrong = otherSpelling(rules.destinationField);
  if (isObject(body) && Object.hasOwn(body, wrong)) {
    throw fieldError(
      `/${wrong}`,
      `is not accepted: version ${version} spells the destination settings ${rules.destinationField}, not ${wrong}`,
      { expected: `/${rules.destinationField}` },
    );
  }
}

// The spec lists only 400 for this endpoint, so an unknown id is a bad field, not a 404.
function existing(store: Store, id: string, field: string): Connection {
  const connection = store.getConnection(id);
  if (!connection) throw fieldError(field, `names no connection (${id})`);
  return connection;
}

function checkDestinationSettings(destination: Connection, settings: Record<string, unknown> | null, rules: VersionRules): void {
  const rule = connectionKind(destination.type)?.destinationSettings;
  if (!rule) return;
  const path = `/${rules.destinationField}`;
  if (settings === null) throw fieldError(path, `is required for a ${destination.type} destination (it holds ${rule.field})`);
  const value = settings[rule.field];
  if (value === undefined) throw fieldError(`${path}/${rule.field}`, `is required for a ${destination.type} destination`);
  const problem = rule.check(value);
  if (problem) throw fieldError(`${path}/${rule.field}`, problem);
}

/** Spec › POST /api/bulk/syncs › Rules 2: when schemas is omitted, all source objects are synced. */
function chosenObjects(source: Connection, asked: string[] | undefined): string[] {
  if (asked === undefined) return [...source.sourceObjects];
  const index = asked.findIndex((name) => !source.sourceObjects.includes(name));
  if (index >= 0) {
    throw fieldError(`/schemas/${index}`, `names no object of the source (its objects: ${source.sourceObjects.join(', ')})`, {
      known: [...source.sourceObjects],
    });
  }
  return [...new Set(asked)];
}

function bulkSyncAnswer(sync: BulkSync, rules: VersionRules): Record<string, unknown> {
  return {
    id: sync.id,
    name: sync.name,
    source_connection_id: sync.sourceConnectionId,
    destination_connection_id: sync.destinationConnectionId,
    mode: sync.mode,
    schedule: structuredClone(sync.schedule),
    schemas: [...sync.schemas],
    [rules.destinationField]: structuredClone(sync.destinationSettings),
  };
}

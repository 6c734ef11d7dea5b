import type { FastifyInstance } from 'fastify';
import { connectionKind } from '../connection-kinds.ts';
import { ApiError, fieldError } from '../errors.ts';
import { isMadeUpHost, primaryKeyColumn, reason, splitTableName, tableColumns, type SourceDatabases } from '../source-db.ts';
import type { Model, Store } from '../store.ts';
import { isObject } from '../validation.ts';

/** The request fields the reference reads; any other top-level field is kept and echoed as sent. */
const READ_FIELDS = new Set(['name', 'connection_id', 'configuration', 'identifier']);

/**
 * Extension: POST /api/models, the real service's shape ({name, connection_id, configuration:
 * {table}, identifier}). The spec has no models; the real service's sources are models over a
 * table of a source connection, so a model sync can read a real database (README › Models).
 * The table and its identifier column are checked against the database itself, not the cache.
 */
export function modelRoutes(app: FastifyInstance, store: Store, databases: SourceDatabases): void {
  app.post('/api/models', async (request) => {
    const body = request.body;
    if (!isObject(body)) throw fieldError('', 'must be a JSON object');
    const name = nonEmptyString(body.name, '/name');
    const connectionId = nonEmptyString(body.connection_id, '/connection_id');
    if (!isObject(body.configuration)) throw fieldError('/configuration', 'is required and must be an object with table');
    if (body.configuration.query !== undefined) throw fieldError('/configuration/query', 'is not served: the reference makes models over a table only (configuration.table)');
    const tableName = nonEmptyString(body.configuration.table, '/configuration/table');
    // Optional, as in the real service: without it the table's primary key keys the rows.
    const sentIdentifier = body.identifier === undefined ? undefined : nonEmptyString(body.identifier, '/identifier');

    const connection = store.getConnection(connectionId);
    if (!connection) throw fieldError('/connection_id', `names no connection (${connectionId})`);
    if (connectionKind(connection.type)?.specKind !== 'relationalDatabase') {
      throw fieldError('/connection_id', `names a ${connection.type} connection: models are made over a postgresql connection's table`);
    }
    if (isMadeUpHost(connection.configuration.hostname)) {
      throw fieldError('/connection_id', `names a connection to a made-up database (${String(connection.configuration.hostname)}): it has no tables to read`);
    }
    const { schema, table } = splitTableName(tableName);
    let fields: Model['fields'];
    let primaryKey: string | undefined;
    try {
      [fields, primaryKey] = await databases.withClient(connection.configuration, (client) => Promise.all([tableColumns(client, schema, table), primaryKeyColumn(client, schema, table)]));
    } catch (error) {
      throw fieldError('/connection_id', `names a connection whose database cannot be read: ${reason(error, connection.configuration)}`);
    }
    if (fields.length === 0) throw fieldError('/configuration/table', `names no table of the database (${schema}.${table})`);
    const identifier = sentIdentifier ?? primaryKey;
    if (identifier === undefined) throw fieldError('/identifier', `is required: ${schema}.${table} has no single-column primary key to key its rows by`);
    if (!fields.some((field) => field.name === identifier)) {
      throw fieldError('/identifier', `is not a column of ${schema}.${table} (its columns: ${fields.map((f) => f.name).join(', ')})`);
    }
    const extra = Object.fromEntries(Object.entries(body).filter(([field]) => !READ_FIELDS.has(field)));
    const model = store.addModel({
      name,
      connectionId,
      configuration: { ...body.configuration, table: `${schema}.${table}` },
      schema,
      table,
      identifier,
      fields,
      extra,
    });
    return { data: modelAnswer(model) };
  });

  app.get<{ Params: { id: string } }>('/api/models/:id', async (request) => {
    const model = store.getModel(request.params.id);
    if (!model) throw new ApiError('not_found', `no model with id ${request.params.id}`, { id: request.params.id });
    return { data: modelAnswer(model) };
  });
}

function nonEmptyString(value: unknown, pointer: string): string {
  if (typeof value !== 'string' || value === '') throw fieldError(pointer, 'is required and must be a non-empty string');
  return value;
}

function modelAnswer(model: Model): Record<string, unknown> {
  return structuredClone({
    ...model.extra,
    id: model.id,
    name: model.name,
    connection_id: model.connectionId,
    configuration: model.configuration,
    identifier: model.identifier,
    fields: model.fields,
  });
}

import type { FastifyInstance } from 'fastify';
import { ApiError, fieldError } from '../errors.ts';
import type { Row, Source, Store } from '../store.ts';
import { isObject } from '../validation.ts';

/** Body limit of the test-control routes only: a suite writes many rows at once. */
export const TEST_CONTROL_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

type SourceParams = { Params: { id: string } };

/**
 * Test control, NOT service API: the spec shows no way to put rows into a source, so the
 * reference has its own endpoints for it, under /_reference/ (README.md › Test control). Same
 * authentication as the API; the version header is not needed.
 */
export function testControlRoutes(app: FastifyInstance, store: Store): void {
  const options = { bodyLimit: TEST_CONTROL_BODY_LIMIT_BYTES };

  app.post('/_reference/sources', options, async (request) => {
    const body = objectBody(request.body);
    const name = nonEmptyString(body, 'name');
    const key = nonEmptyString(body, 'key');
    const source = store.addSource(name, key);
    return { data: { id: source.id, name: source.name, key: source.key } };
  });

  app.put<SourceParams>('/_reference/sources/:id/rows', options, async (request) => {
    const body = objectBody(request.body);
    if (!Array.isArray(body.rows)) throw fieldError('/rows', 'is required and must be an array of rows');
    const source = store.getSource(request.params.id);
    if (!source) throw new ApiError('not_found', `no source with id ${request.params.id}`, { id: request.params.id });
    // Every row is checked before any is written: a refused request changes nothing.
    const rows = body.rows.map((row, i) => checkedRow(row, i, source));
    store.writeRows(source, rows);
    return { data: { written: rows.length, total: source.rows.size } };
  });
}

function objectBody(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw fieldError('', 'must be a JSON object');
  return body;
}

function nonEmptyString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') throw fieldError(`/${field}`, 'is required and must be a non-empty string');
  return value;
}

/** A row is flat: every value a string, a number, a boolean or null, and the key column a string or a number. */
function checkedRow(row: unknown, i: number, source: Source): Row {
  if (!isObject(row)) throw fieldError(`/rows/${i}`, 'must be an object (a row)', { row: i });
  for (const [column, value] of Object.entries(row)) {
    if (value !== null && typeof value === 'object') throw fieldError(`/rows/${i}/${escapePointer(column)}`, 'must be a string, a number, a boolean or null', { row: i });
  }
  const key = row[source.key];
  if (typeof key !== 'string' && typeof key !== 'number') {
    throw fieldError(`/rows/${i}/${escapePointer(source.key)}`, `must be a string or a number: it is the source's key column (row ${i})`, { row: i });
  }
  return row as Row;
}

/** RFC 6901: ~ and / in a name. */
function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

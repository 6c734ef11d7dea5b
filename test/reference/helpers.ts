import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { expect } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import type { ReferenceOptions } from '../../src/reference/config.ts';
import { validate } from '../../src/schemas.ts';

export const API_KEY = 'k1';
export const ORG_KEY = 'o1';
export const BEARER = `Bearer ${API_KEY}`;
export const BASIC = `Basic ${Buffer.from(`${ORG_KEY}:`).toString('base64')}`;
export const CACHE_DELAY_MS = 50;

export { sleep };

/**
 * The reference as the tests use it: loopback, fixed keys, a short schema cache delay that ends by
 * time alone (the tests wait it out rather than ask once first; bulk-syncs.test.ts tests the hold).
 */
export function start(options: ReferenceOptions = {}): Promise<RunningReference> {
  return startReference({ port: 0, apiKey: API_KEY, orgKey: ORG_KEY, schemaCacheDelayMs: CACHE_DELAY_MS, holdSchemaStage: false, ...options });
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // Tests read arbitrary paths of answers; `any` keeps them short.
  json: any;
}

export interface CallOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (wins over body). */
  raw?: string | Buffer;
  /** Authorization value; null sends none. Default: the Bearer API key. */
  auth?: string | null;
  version?: string;
  headers?: Record<string, string>;
}

/** One HTTP exchange with the reference over real loopback HTTP. */
export async function call(ref: RunningReference, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const auth = options.auth === undefined ? BEARER : options.auth;
  if (auth !== null) headers.authorization = auth;
  if (options.version !== undefined) headers['x-service-version'] = options.version;
  let body: string | Buffer | undefined = options.raw;
  if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  const answer = await request(ref.baseUrl + path, { method: method as 'GET', headers, body });
  const text = await answer.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: answer.statusCode, headers: answer.headers, text, json };
}

/** An error answer of the documented shape: JSON, all four fields, status equal to the HTTP status. */
export function expectError(answer: Answer, status: number, key: string): void {
  expect({ status: answer.status, key: answer.json?.key }, answer.text).toEqual({ status, key });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(validate('error-body.schema.json', answer.json)).toEqual([]);
  expect(Object.keys(answer.json).sort()).toEqual(['key', 'message', 'metadata', 'status']);
  expect(answer.json.status).toBe(status);
  expect(typeof answer.json.message).toBe('string');
  expect(answer.headers['x-service-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
}

export const CONFIGURATIONS = {
  salesforce: { domain: 'https://example.my.salesforce.com' },
  hubspot: {},
  s3: {
    cloud_access_key_id: 'AKIAEXAMPLE',
    cloud_secret_access_key: 's3-secret-value',
    object_store_bucket_region: 'eu-west-1',
    object_store_bucket_name: 'bucket',
  },
  postgresql: { hostname: 'db.example.com', port: 5432, database: 'app', username: 'etl', password: 'pg-secret-value' },
  webhook: { url: 'https://hooks.example.com/in' },
} as const;

export type Kind = keyof typeof CONFIGURATIONS;

export function connectionBody(type: Kind, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: `test ${type}`, type, configuration: CONFIGURATIONS[type], ...extra };
}

/** Creates a connection and returns its id. */
export async function createConnection(ref: RunningReference, type: Kind): Promise<string> {
  const answer = await call(ref, 'POST', '/api/connections', { body: connectionBody(type) });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data.id as string;
}

export function bulkBody(source: string, destination: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'test bulk sync',
    source_connection_id: source,
    destination_connection_id: destination,
    mode: 'replicate',
    schedule: { frequency: 'manual' },
    ...extra,
  };
}

export const MODEL_FIELDS = [{ source: { field: 'email' }, target: 'email' }];

/** Creates a webhook connection and a model sync delivering to it; returns the sync id. */
export async function createModelSync(ref: RunningReference): Promise<string> {
  const connection = await createConnection(ref, 'webhook');
  const answer = await call(ref, 'POST', '/api/syncs', {
    body: { name: 'test model sync', target: { connection_id: connection, object: 'http' }, fields: MODEL_FIELDS },
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data.id as string;
}

/** Creates a bulk sync from a salesforce source into s3 once the cache is ready; returns its id. */
export async function createBulkSync(ref: RunningReference): Promise<string> {
  const source = await createConnection(ref, 'salesforce');
  const destination = await createConnection(ref, 's3');
  await sleep(CACHE_DELAY_MS + 10);
  const answer = await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { destination_configuration: { format: 'csv' } }) });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data.id as string;
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ReferenceConfig } from '../config.ts';
import type { ApiError } from '../errors.ts';
import type { Store } from '../store.ts';
import { isObject } from '../validation.ts';

/**
 * What a fault may touch. The fastify instance is handed over before any route exists, so hooks
 * a fault adds apply to every route; a fault narrows them to one route with `isRoute`.
 */
export interface ReferenceSeams {
  app: FastifyInstance;
  store: Store;
  /** Includes `delivery`, the steps of a webhook delivery (delivery.ts), which a fault wraps or replaces. */
  config: ReferenceConfig;
  /** The credentials the reference accepts, for faults that compare a credential another way than the authenticator. */
  keys: { apiKey: string; orgKey: string };
}

/** A deliberate deviation from the spec, used to prove that the suite notices it. */
export interface Fault {
  name: string;
  /** Requirement IDs (specs/requirements.json) whose checks must fail when this fault is on. */
  breaks: string[];
  description: string;
  /** The one API version under which the fault shows: the suite sees it with --api-version this (or all). */
  apiVersion?: string;
  apply(seams: ReferenceSeams): void;
}

/** Routes by their fastify URL pattern, as `request.routeOptions.url` reports them. */
export const ROUTES = {
  connections: '/api/connections',
  bulkSyncs: '/api/bulk/syncs',
  bulkErrorHandling: '/api/bulk/syncs/:id/error-handling',
  modelSyncs: '/api/syncs',
  models: '/api/models',
  syncErrorHandling: '/api/syncs/:id/error-handling',
  runs: '/api/syncs/:id/executions',
  run: '/api/syncs/:id/executions/:execution_id',
} as const;

export function isRoute(request: FastifyRequest, method: string, url: string): boolean {
  return request.method === method && request.routeOptions.url === url;
}

type Body = Record<string, unknown>;

/**
 * Runs before the route validates its body: a fault may rewrite `request.body`, throw an
 * ApiError, or answer itself by sending and returning the reply.
 */
export function beforeRoute(
  app: FastifyInstance,
  method: string,
  url: string,
  run: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | void,
): void {
  app.addHook('preValidation', async (request, reply) => {
    if (isRoute(request, method, url)) return run(request, reply);
  });
}

/** Edits `data` of a successful answer on one route before it is serialized. */
export function editSuccess(app: FastifyInstance, method: string, url: string, edit: (data: Body, request: FastifyRequest) => void): void {
  app.addHook('preSerialization', async (request, reply, payload: unknown) => {
    if (reply.statusCode < 400 && isRoute(request, method, url) && isObject(payload) && isObject(payload.data)) {
      edit(payload.data, request);
    }
    return payload;
  });
}

/**
 * Turns a successful answer on one route into an error when `refuse` says so, after the route
 * did all its own checks (so earlier failures, such as a not-yet-cached schema, keep their
 * answer). `undo` removes what the route created, leaving no trace of the refused request.
 */
export function refuseSuccess(
  app: FastifyInstance,
  method: string,
  url: string,
  refuse: (request: FastifyRequest) => ApiError | undefined,
  undo: (data: Body) => void,
): void {
  app.addHook('preSerialization', async (request, reply, payload: unknown) => {
    if (reply.statusCode >= 400 || !isRoute(request, method, url) || !isObject(payload) || !isObject(payload.data)) return payload;
    const error = refuse(request);
    if (!error) return payload;
    undo(payload.data);
    throw error;
  });
}

/** Edits every error body (any route) after serialization, with the reply to change headers. */
export function editErrorBody(app: FastifyInstance, edit: (body: Body, reply: FastifyReply) => void): void {
  app.addHook('onSend', async (_request, reply, payload: unknown) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      return payload; // not one of the reference's error bodies; nothing to deviate from
    }
    if (!isObject(body)) return payload;
    edit(body, reply);
    return JSON.stringify(body);
  });
}

/** Replaces a Store method on the instance with a wrapper around the original. */
export function wrapStore<K extends keyof Store>(store: Store, name: K, wrap: (original: Store[K]) => Store[K]): void {
  const original = (store[name] as (...args: never[]) => unknown).bind(store) as Store[K];
  (store as unknown as Record<K, Store[K]>)[name] = wrap(original);
}

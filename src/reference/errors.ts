import type { ErrorObject } from 'ajv';

/**
 * Every error key the reference answers, with its HTTP status: the one place they are defined
 * (README.md › Error keys repeats this table for readers). The spec does not list key values
 * (Spec › Errors › Error body), so these names are the reference's own.
 */
export const ERROR_KEYS = {
  forbidden: { status: 403, meaning: 'The Authorization header is missing, malformed, of an unknown scheme, or carries a wrong credential.' },
  not_found: { status: 404, meaning: 'No route answers this method and path, or the id in the path is unknown.' },
  validation_error: { status: 400, meaning: 'The body does not have the required shape or values; message and metadata.field name the field.' },
  unsupported_version: { status: 400, meaning: 'X-Service-Version carries a value that is not a known version.' },
  schemas_not_cached: { status: 400, meaning: "The bulk sync's source connection has no cached schemas yet; repeat the request later." },
  invalid_json: { status: 400, meaning: 'The body is labelled JSON but is empty or not valid JSON.' },
  body_too_large: { status: 400, meaning: 'The body is larger than the body limit (1 MiB by default).' },
  bad_request: { status: 400, meaning: 'The request is malformed at the HTTP level (bad URL, wrong Content-Length).' },
  not_runnable: { status: 400, meaning: 'The model sync cannot run: it does not deliver to a webhook connection, or its fields name no source.' },
  conflict: { status: 409, meaning: 'A run of this sync is already running; start another when it has ended.' },
  unsupported_media_type: { status: 415, meaning: 'A body was sent with a Content-Type other than application/json.' },
  internal_error: { status: 500, meaning: 'A bug in the reference; the message does not leak details.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorKey = keyof typeof ERROR_KEYS;

/** The error body of Spec › Errors, with every field always present. */
export interface ErrorBody {
  key: ErrorKey;
  message: string;
  metadata: Record<string, unknown> | null;
  status: number;
}

/** An answer that is an error: thrown anywhere in a request, turned into a body by the error handler. */
export class ApiError extends Error {
  readonly key: ErrorKey;
  readonly status: number;
  readonly metadata: Record<string, unknown> | null;

  constructor(key: ErrorKey, message: string, metadata: Record<string, unknown> | null = null) {
    super(message);
    this.name = 'ApiError';
    this.key = key;
    this.status = ERROR_KEYS[key].status;
    this.metadata = metadata;
  }

  toBody(): ErrorBody {
    return { key: this.key, message: this.message, metadata: this.metadata, status: this.status };
  }
}

/**
 * A validation_error naming one field of the body as a JSON Pointer ("" is the whole body),
 * so that a client can tell which field to fix without parsing the message.
 */
export function fieldError(field: string, problem: string, extra: Record<string, unknown> = {}): ApiError {
  const subject = field === '' ? 'request body' : field;
  return new ApiError('validation_error', `${subject} ${problem}`, { field, ...extra });
}

/** The first Ajv error as a field error; missing properties are named by their own path. */
export function fromAjvError(error: ErrorObject, prefix = ''): ApiError {
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return fieldError(`${prefix}${error.instancePath}/${missing}`, 'is required');
  }
  return fieldError(`${prefix}${error.instancePath}`, error.message ?? 'is invalid');
}

// Fastify's own error codes for bodies it could not take, mapped to the reference's keys so that
// a malformed request never gets fastify's default body shape.
const FASTIFY_CODES: Record<string, { key: ErrorKey; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { key: 'invalid_json', message: 'body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { key: 'invalid_json', message: 'body is empty but Content-Type is application/json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { key: 'body_too_large', message: 'body is larger than the body limit' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { key: 'unsupported_media_type', message: 'bodies must be sent as Content-Type: application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { key: 'bad_request', message: 'body size does not match Content-Length' },
  FST_ERR_BAD_URL: { key: 'bad_request', message: 'the URL is malformed' },
  FST_ERR_MAX_PARAM_LENGTH: { key: 'bad_request', message: 'a path parameter is too long' },
};

/** Whatever was thrown during a request, as an ApiError; anything unforeseen is internal_error. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const { code, statusCode } = (error ?? {}) as { code?: unknown; statusCode?: unknown };
  const known = typeof code === 'string' ? FASTIFY_CODES[code] : undefined;
  if (known) return new ApiError(known.key, known.message);
  // Any other client error fastify raises is still a client error, never a 500.
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return new ApiError('bad_request', 'the request is malformed');
  }
  return new ApiError('internal_error', 'internal error in the reference service');
}

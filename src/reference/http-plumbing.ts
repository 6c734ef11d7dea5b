import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ReferenceConfig } from './config.ts';
import { ApiError, toApiError } from './errors.ts';
import { VERSION_HEADER } from './versions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API version serving this request (a key of ReferenceConfig.versions). */
    serviceVersion: string;
  }
}

/** Answers an error in the shape of Spec › Errors, whatever raised it. */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, config: ReferenceConfig): void {
  const apiError = toApiError(error);
  if (apiError.key === 'internal_error') request.log.error({ err: error }, 'unexpected error');
  // Errors raised before the version hook ran (e.g. a malformed URL) still carry a version.
  if (!reply.hasHeader(VERSION_HEADER)) reply.header(VERSION_HEADER, config.defaultVersion);
  reply.code(apiError.status).type('application/json; charset=utf-8').send(apiError.toBody());
}

/**
 * Everything that applies to every request before any route: the version header (echoed on every
 * answer), then the credential, then the version's validity. The credential comes first so that a
 * caller without one learns nothing else (Spec › Endpoints: 'Every endpoint requires
 * authentication'). Also the error and not-found handlers that keep every answer JSON.
 */
export function installPlumbing(app: FastifyInstance, config: ReferenceConfig): void {
  app.decorateRequest('serviceVersion', '');
  // Bodies are JSON (Spec › Conventions); without this fastify would hand a text/plain body to the route.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers[VERSION_HEADER];
    const asked = Array.isArray(header) ? header.join(', ') : header;
    const version = config.resolveVersion(asked);
    request.serviceVersion = version ?? config.defaultVersion;
    reply.header(VERSION_HEADER, request.serviceVersion);
    if (request.routeOptions.config?.public !== true && !config.authenticate(request.headers.authorization)) {
      throw new ApiError('forbidden', 'a valid Authorization header is required: Bearer <api key> or Basic base64(<org key>:)');
    }
    if (version === undefined) {
      const known = [...config.versions.keys()];
      throw new ApiError('unsupported_version', `X-Service-Version ${JSON.stringify(asked)} is not a supported version (supported: ${known.join(', ')})`, {
        header: 'X-Service-Version',
        supported: known,
      });
    }
  });

  app.setErrorHandler((error: FastifyError, request, reply) => sendError(error, request, reply, config));

  app.setNotFoundHandler((request) => {
    throw new ApiError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`);
  });
}

/** For Fastify's frameworkErrors option: router-level errors (a malformed URL) that happen before any hook. */
export function frameworkErrorHandler(config: ReferenceConfig) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => sendError(error, request, reply, config);
}

// At the end, so the lines above keep the numbers bench/mutation-triage.json names them by.
declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route that needs no credential (the real service's public ones); the version is still checked. */
    public?: boolean;
  }
}

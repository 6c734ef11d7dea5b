import type { FastifyInstance } from 'fastify';
import { CONNECTION_KINDS } from '../connection-kinds.ts';

/**
 * Extension: GET /api/connection_types, the real service's list of connector kinds. Public, as
 * the real one is (its client sends no credential for it): what a service can connect to is no
 * secret. The version header is still read and checked.
 */
export function connectionTypeRoutes(app: FastifyInstance): void {
  app.get('/api/connection_types', { config: { public: true } }, async () => ({
    data: Object.entries(CONNECTION_KINDS).map(([id, kind]) => ({
      id,
      name: kind.name,
      use_oauth: kind.oauth,
      // A webhook only receives; every other kind here can be read by a bulk sync or a model.
      capabilities: { source: kind.specKind !== 'webhook', destination: true, enrichment: false, orchestration: false },
    })),
  }));
}

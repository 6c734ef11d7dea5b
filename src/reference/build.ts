import Fastify, { type FastifyInstance } from 'fastify';
import { UsageError } from '../cli-errors.ts';
import { createConfig, DEFAULT_BODY_LIMIT_BYTES, generateKey, type ReferenceConfig, type ReferenceOptions } from './config.ts';
import { Discovery } from './discovery.ts';
import { applyFaults } from './faults.ts';
import { frameworkErrorHandler, installPlumbing } from './http-plumbing.ts';
import { bulkSyncRoutes } from './routes/bulk-syncs.ts';
import { connectionRoutes } from './routes/connections.ts';
import { connectionTypeRoutes } from './routes/connection-types.ts';
import { errorHandlingRoutes } from './routes/error-handling.ts';
import { executionRoutes } from './routes/executions.ts';
import { modelSyncRoutes } from './routes/model-syncs.ts';
import { testControlRoutes } from './routes/test-control.ts';
import { modelRoutes } from './routes/models.ts';
import { deleteRoutes } from './routes/deletes.ts';
import { executionLogRoutes } from './routes/execution-logs.ts';
import { SignedLogFiles } from './log-files.ts';
import { Runs } from './runs.ts';
import { SourceDatabases } from './source-db.ts';
import { Store } from './store.ts';

/** A reference service put together but not listening, with the parts startReference hands out. */
export interface Reference {
  app: FastifyInstance;
  store: Store;
  config: ReferenceConfig;
  runs: Runs;
  /** The log files' storage origin, when the capture log is behind signed URLs (captureLog 'signed-urls'). */
  logFiles?: SignedLogFiles;
  apiKey: string;
  orgKey: string;
}

function key(name: string, given: string | undefined): string {
  if (given === '') throw new UsageError(`${name} must not be empty`);
  return given ?? generateKey();
}

export function createReference(options: ReferenceOptions = {}): Reference {
  const apiKey = key('apiKey', options.apiKey);
  const orgKey = key('orgKey', options.orgKey);
  const config = createConfig(apiKey, orgKey, options);
  const store = new Store();
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    // Closing ends every connection: one whose request body was left unread (an answer given
    // before it, as a fault's early 500 does) kept close() waiting 70 s for Node's request timeout.
    forceCloseConnections: true,
    frameworkErrors: frameworkErrorHandler(config),
    // An id is any string (Spec › Path parameter 'id (string, required)'): a long unknown id is an
    // unknown id (404), not a malformed request, so fastify's 100-character cap is lifted.
    routerOptions: { maxParamLength: 8192 },
  });
  installPlumbing(app, config);
  // Before the routes, so that the hooks faults add are in place for every route.
  applyFaults(options.faults ?? [], { app, store, config, keys: { apiKey, orgKey } });
  const databases = new SourceDatabases();
  const discovery = new Discovery(databases, config);
  const runs = new Runs(store, config, databases);
  // Before the creations: it stamps each with its time, for the lists.
  deleteRoutes(app, store, runs);
  connectionRoutes(app, store, config, discovery);
  connectionTypeRoutes(app);
  bulkSyncRoutes(app, store, config, discovery);
  modelSyncRoutes(app, store);
  errorHandlingRoutes(app, store);
  modelRoutes(app, store, databases);
  executionRoutes(app, store, runs);
  const logFiles = options.captureLog === 'signed-urls' ? new SignedLogFiles(options.host ?? '127.0.0.1', options.logUrlTtlMs) : undefined;
  if (logFiles) executionLogRoutes(app, store, logFiles);
  testControlRoutes(app, store);
  app.addHook('onClose', async () => {
    // Ending the database clients first lets discoveries and runs that wait on them end at once.
    await databases.close();
    await Promise.all([discovery.close(), runs.close(), logFiles?.close()]);
  });
  return { app, store, config, runs, ...(logFiles ? { logFiles } : {}), apiKey, orgKey };
}

/** The service as a fastify instance that is not listening, for in-process use (inject, or listen yourself). */
export function buildReference(options: ReferenceOptions = {}): FastifyInstance {
  return createReference(options).app;
}

import { isObject } from '../validation.ts';
import { ApiError, fieldError } from '../errors.ts';
import { BEFORE_RENAME, DEFAULT_VERSION, RENAMED, otherSpelling } from '../versions.ts';
import { beforeRoute, ROUTES, type Fault } from './fault.ts';

export const versionFaults: Fault[] = [
  {
    name: 'reject-version-2024-02-08',
    breaks: ['VER-001', 'VER-002'],
    description: 'X-Service-Version 2024-02-08 is answered 400 unsupported_version, as if it were unknown.',
    apply: ({ config }) => {
      config.versions.delete('2024-02-08');
    },
  },
  {
    name: 'accept-wrong-spelling',
    breaks: ['VER-004'],
    description:
      "POST /api/bulk/syncs takes the other version's spelling of the destination settings (dest_configuration under 2023-04-25 and later, destination_configuration before) as if it were the right one.",
    apply: ({ app, config }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        const right = config.versions.get(request.serviceVersion)?.destinationField;
        if (!isObject(body) || right === undefined) return;
        const wrong = otherSpelling(right);
        if (Object.hasOwn(body, wrong) && !Object.hasOwn(body, right)) {
          body[right] = body[wrong];
          delete body[wrong];
        }
      }),
  },
  {
    name: 'wrong-spelling-accepted-2024-database',
    breaks: ['VER-004'],
    description:
      "Under 2024-02-08 only, and for a relational database destination only, POST /api/bulk/syncs takes dest_configuration as if it were destination_configuration.",
    apply: ({ app, store }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        if (request.serviceVersion !== '2024-02-08' || !isObject(body) || typeof body.destination_connection_id !== 'string') return;
        if (store.getConnection(body.destination_connection_id)?.type !== 'postgresql') return;
        if (Object.hasOwn(body, 'dest_configuration') && !Object.hasOwn(body, 'destination_configuration')) {
          body.destination_configuration = body.dest_configuration;
          delete body.dest_configuration;
        }
      }),
  },
  {
    name: 'new-spelling-only',
    // VER-004 too: under 2022-12-12, destination_configuration is then taken instead of refused.
    breaks: ['VER-003', 'VER-004', 'VER-006'],
    description: 'Versions 2022-12-12 and 2021-05-23 require destination_configuration too and refuse dest_configuration.',
    apply: ({ config }) => {
      config.versions.set('2022-12-12', RENAMED);
      config.versions.set('2021-05-23', RENAMED);
    },
  },
  {
    name: 'default-version-2022',
    breaks: ['VER-005'],
    description: 'A request without X-Service-Version is served as 2022-12-12 instead of 2025-09-18.',
    apply: ({ config }) => {
      config.defaultVersion = '2022-12-12';
    },
  },
  {
    name: 'unknown-version-accepted',
    breaks: ['VER-007'],
    description: 'An unknown X-Service-Version value is served as the default version instead of answered 400.',
    apply: ({ config }) => {
      const resolve = config.resolveVersion;
      config.resolveVersion = (header) => resolve(header) ?? config.defaultVersion;
    },
  },
  {
    name: 'rename-one-version-late',
    // VER-004 too: under 2023-04-25, dest_configuration is then taken and destination_configuration refused.
    breaks: ['VER-002', 'VER-004'],
    description: 'The version table has the rename one version late: 2023-04-25 still spells the destination settings dest_configuration.',
    apply: ({ config }) => {
      config.versions.set('2023-04-25', BEFORE_RENAME);
    },
  },
  {
    name: 'object-store-reads-new-spelling',
    // VER-004 too: under the older versions an object store's destination_configuration is then taken;
    // VER-006 too: it sends an object store under 2021-05-23 with dest_configuration.
    breaks: ['VER-003', 'VER-004', 'VER-006'],
    description:
      'The object-store destination reads its settings from destination_configuration under every version: under 2022-12-12 and 2021-05-23 its dest_configuration is refused ("format is required") and destination_configuration taken. Relational databases are right.',
    apply: ({ app, store, config }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        if (config.versions.get(request.serviceVersion)?.destinationField !== 'dest_configuration') return;
        if (!isObject(body) || typeof body.destination_connection_id !== 'string') return;
        if (store.getConnection(body.destination_connection_id)?.type !== 's3') return;
        if (Object.hasOwn(body, 'destination_configuration')) {
          body.dest_configuration = body.destination_configuration;
          delete body.destination_configuration;
        } else {
          throw fieldError('/destination_configuration/format', 'is required');
        }
      }),
  },
  {
    name: 'version-header-required',
    breaks: ['VER-005'],
    description: 'A request without X-Service-Version is answered 400 unsupported_version instead of served as the default version.',
    apply: ({ config }) => {
      const resolve = config.resolveVersion;
      config.resolveVersion = (header) => (header === undefined ? undefined : resolve(header));
    },
  },
  {
    name: 'oldest-version-served-as-default',
    // VER-004 too: under 2021-05-23, destination_configuration is then taken.
    breaks: ['VER-004', 'VER-006'],
    description: 'X-Service-Version 2021-05-23 is accepted but served as the default version (2025-09-18), so it spells the destination settings destination_configuration.',
    apply: ({ config }) => {
      const resolve = config.resolveVersion;
      config.resolveVersion = (header) => (header === '2021-05-23' ? DEFAULT_VERSION : resolve(header));
    },
  },
  {
    name: 'version-date-pinning',
    breaks: ['VER-007'],
    description:
      'An unknown X-Service-Version that is a date is served as the newest known version on or before it (2025-09-19 as 2025-09-18); only a date before every version, or a value that is not a date, is answered 400.',
    apply: ({ config }) => {
      const resolve = config.resolveVersion;
      config.resolveVersion = (header) => {
        const known = resolve(header);
        if (known !== undefined || header === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(header)) return known;
        return [...config.versions.keys()].sort().reverse().find((v) => v <= header);
      };
    },
  },
  {
    name: 'oldest-version-refused-on-writes',
    // VER-006 too: it creates a bulk sync under 2021-05-23.
    breaks: ['VER-001', 'VER-006'],
    description: 'X-Service-Version 2021-05-23 is served on reads (GET) but answered 400 unsupported_version on every write (POST, PUT).',
    apply: ({ app }) =>
      app.addHook('preValidation', async (request) => {
        if (request.method !== 'GET' && request.headers['x-service-version'] === '2021-05-23') {
          throw new ApiError('unsupported_version', 'X-Service-Version "2021-05-23" is read-only');
        }
      }),
  },
  {
    name: 'connection-2022-object-store-refused',
    breaks: ['VER-001'],
    description:
      'Under 2022-12-12 only, POST /api/connections answers an object store (s3) connection 400 validation_error on /configuration/object_store_endpoint (a field that version is said to require); the other kinds, and s3 under the other versions, are accepted.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        if (request.serviceVersion === '2022-12-12' && isObject(request.body) && request.body.type === 's3') throw fieldError('/configuration/object_store_endpoint', 'is required');
      }),
  },
  {
    name: 'connection-without-version-refused',
    breaks: ['VER-005'],
    description: 'POST /api/connections without X-Service-Version is answered 400 unsupported_version; the other endpoints serve the default version.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        if (request.headers['x-service-version'] === undefined) throw new ApiError('unsupported_version', 'X-Service-Version is required to create a connection');
      }),
  },
];

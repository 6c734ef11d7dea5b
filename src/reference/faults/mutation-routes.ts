import { CONNECTION_KINDS, connectionKind } from '../connection-kinds.ts';
import { fieldError } from '../errors.ts';
import { isObject } from '../validation.ts';
import { beforeRoute, refuseSuccess, ROUTES, type Fault } from './fault.ts';

/**
 * Faults that kill surviving mutants of connection-kinds.ts and routes/bulk-syncs.ts
 * (bench/mutation-triage.json): each is the deviation a mutant makes, written as a fault, so the
 * fault matrix proves that the check added for it can fail.
 */
export const mutationRouteFaults: Fault[] = [
  {
    name: 'kind-lookup-inherited-500',
    breaks: ['CONN-008'],
    description: 'POST /api/connections looks a type up among the kinds by plain property access: a type naming a member every JavaScript object inherits ("constructor") finds one, and reading its configuration rules answers 500 internal_error instead of 4xx.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.connections, (request) => {
        const type = isObject(request.body) ? request.body.type : undefined;
        if (typeof type === 'string' && type in CONNECTION_KINDS && !Object.hasOwn(CONNECTION_KINDS, type)) {
          throw new TypeError("Cannot convert undefined or null to object");
        }
      }),
  },
  {
    name: 'non-database-source-objects-refused',
    breaks: ['BULK-004'],
    description: 'POST /api/bulk/syncs from a CRM, marketing or object-store source answers a schemas list naming its objects 400 validation_error on /schemas/0, as if the kind offered none of them (only a relational source\'s discovered tables are looked up); without schemas the bulk sync is taken.',
    apply: ({ app, store }) =>
      refuseSuccess(
        app,
        'POST',
        ROUTES.bulkSyncs,
        (request) => {
          const body = isObject(request.body) ? request.body : {};
          const source = typeof body.source_connection_id === 'string' ? store.getConnection(body.source_connection_id) : undefined;
          const kind = source && connectionKind(source.type)?.specKind;
          const named = Array.isArray(body.schemas) && body.schemas.length > 0;
          return named && kind && kind !== 'relationalDatabase' ? fieldError('/schemas/0', 'names no object of the source') : undefined;
        },
        (data) => store.bulkSyncs.delete(String(data.id)),
      ),
  },
];

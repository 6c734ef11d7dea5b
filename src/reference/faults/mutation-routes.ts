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
  {
    name: 'bulk-destination-without-settings-rule-500',
    breaks: ['BULK-007'],
    description: 'POST /api/bulk/syncs reads the destination kind\'s settings rule without checking that the kind has one: a bulk sync into a CRM, marketing or webhook destination is answered 500 internal_error instead of 2xx or 4xx.',
    apply: ({ app, store }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const id = isObject(request.body) ? request.body.destination_connection_id : undefined;
        const destination = typeof id === 'string' ? store.getConnection(id) : undefined;
        if (destination && connectionKind(destination.type)?.destinationSettings === null) throw new TypeError("Cannot read properties of null (reading 'field')");
      }),
  },
  {
    name: 'bulk-webhook-source-500',
    breaks: ['BULK-007'],
    description: 'POST /api/bulk/syncs counts the source kind\'s objects without checking that it has a list: a bulk sync from a webhook connection is answered 500 internal_error instead of 4xx.',
    apply: ({ app, store }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const id = isObject(request.body) ? request.body.source_connection_id : undefined;
        const source = typeof id === 'string' ? store.getConnection(id) : undefined;
        if (source && connectionKind(source.type)?.specKind === 'webhook') throw new TypeError("Cannot read properties of undefined (reading 'length')");
      }),
  },
  {
    name: 'bulk-destination-settings-absent-500',
    breaks: ['BULK-005'],
    description: 'POST /api/bulk/syncs reads the destination settings without checking they were sent: a bulk sync into an object-store or relational-database destination with its settings left out (neither destination_configuration nor dest_configuration) is answered 500 internal_error instead of 400; null or a wrong type is still refused 400.',
    apply: ({ app, store }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = isObject(request.body) ? request.body : undefined;
        const id = body?.destination_connection_id;
        const destination = typeof id === 'string' ? store.getConnection(id) : undefined;
        const needsSettings = destination && connectionKind(destination.type)?.destinationSettings;
        if (body && needsSettings && !('destination_configuration' in body) && !('dest_configuration' in body)) throw new TypeError("Cannot read properties of undefined (reading 'format')");
      }),
  },
];

import { CONNECTION_KINDS } from '../connection-kinds.ts';
import { isObject } from '../validation.ts';
import { beforeRoute, ROUTES, type Fault } from './fault.ts';

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
];

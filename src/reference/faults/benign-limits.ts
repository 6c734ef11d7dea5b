import { fieldError } from '../errors.ts';
import { isObject } from '../validation.ts';
import { beforeRoute, ROUTES, type Fault } from './fault.ts';

// Conforming-but-unusual limits: the spec shows none ('request size limits: not shown'), so a
// target may refuse what is past its own, as long as it says so (400) and keeps what it held.

export const limitVariants: Fault[] = [
  {
    name: 'subscribers-limit-100',
    breaks: [],
    description: 'A PUT of error-handling settings with more than 100 subscribers is answered 400 validation_error (a limit of the target\'s own), and nothing changes.',
    apply: ({ app }) => {
      for (const url of [ROUTES.syncErrorHandling, ROUTES.bulkErrorHandling]) {
        beforeRoute(app, 'PUT', url, (request) => {
          const body = request.body;
          if (isObject(body) && Array.isArray(body.subscribers) && body.subscribers.length > 100) throw fieldError('subscribers', 'must have at most 100 addresses');
        });
      }
    },
  },
];

import { ApiError } from '../errors.ts';
import { editErrorBody, isRoute, ROUTES, type Fault } from './fault.ts';

const BEARER = /^bearer +\S/i;
const BASIC = /^basic +\S/i;

const b64 = (s: string) => Buffer.from(s).toString('base64');
/** The decoded Basic credential, or undefined for another scheme. */
const basicOf = (header: string | undefined) => (BASIC.test(header ?? '') ? Buffer.from((header ?? '').replace(/^basic +/i, ''), 'base64').toString('utf8') : undefined);

export const authFaults: Fault[] = [
  {
    name: 'basic-accepts-user-key',
    // AUTH-005 too: the creation endpoints take the user key under Basic as well.
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'Basic takes either key: the user API key composed as the organization key is ("<user key>:") is accepted too (one key table for both schemes).',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => {
        const decoded = basicOf(header);
        return authenticate(header) || (decoded !== undefined && decoded.endsWith(':') && authenticate(`Bearer ${decoded.slice(0, -1)}`));
      };
    },
  },
  {
    name: 'bearer-accepts-org-key',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'Bearer takes either key: "Bearer <organization key>" is accepted too (one key table for both schemes).',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => authenticate(header) || (BEARER.test(header ?? '') && authenticate(`Basic ${b64(`${(header ?? '').replace(/^bearer +/i, '').trim()}:`)}`));
    },
  },
  {
    name: 'basic-org-key-case-insensitive',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'The organization key in Basic is compared ignoring case (Bearer compares exactly).',
    apply: ({ config, keys }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => authenticate(header) || basicOf(header)?.toLowerCase() === `${keys.orgKey}:`.toLowerCase();
    },
  },
  {
    name: 'basic-org-key-prefix',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'The organization key in Basic is compared by prefix: any non-empty beginning of it ("<start of org key>:") is accepted (a comparison bounded by the given length).',
    apply: ({ config, keys }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => {
        const user = basicOf(header)?.match(/^([^:]+):$/)?.[1];
        return authenticate(header) || (user !== undefined && keys.orgKey.startsWith(user));
      };
    },
  },
  {
    name: 'bearer-rejected',
    // The key is refused everywhere, so every check that can say so fails (the rest cannot be
    // judged): the run is NOT CONFORMANT, never a run of skips.
    breaks: ['AUTH-001', 'CONN-001', 'CONN-002', 'CONN-003', 'CONN-004', 'CONN-005', 'CONN-006', 'CONN-007', 'EHB-002', 'EHS-007', 'VER-001'],
    description: 'Every Bearer credential, the right API key included, is answered 403 (Basic still works).',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => !BEARER.test(header ?? '') && authenticate(header);
    },
  },
  {
    name: 'basic-rejected',
    breaks: ['AUTH-002'],
    description: 'Every Basic credential, the right organization key included, is answered 403 (Bearer still works).',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => !BASIC.test(header ?? '') && authenticate(header);
    },
  },
  {
    name: 'missing-credential-allowed',
    breaks: ['AUTH-003', 'AUTH-005'],
    description: 'A request without an Authorization header (or with an empty one) is served as authenticated.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => (header ?? '').trim() === '' || authenticate(header);
    },
  },
  {
    name: 'wrong-key-allowed',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'Any Bearer value is accepted as the API key.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => BEARER.test(header ?? '') || authenticate(header);
    },
  },
  {
    name: 'bearer-first-token-only',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'A Bearer header is read up to its first token: "Bearer <api key> <anything>" is accepted.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => authenticate((header ?? '').replace(/^(bearer +\S+) +\S.*$/i, '$1'));
    },
  },
  {
    name: 'auth-header-last-two-words',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'The Authorization header is read by its last two words (an unanchored match): "Token Bearer <api key>", or any words before a valid credential, is accepted.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => authenticate(header) || authenticate((header ?? '').trim().split(/ +/).slice(-2).join(' '));
    },
  },
  {
    name: 'unknown-scheme-read-as-basic',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'Every scheme other than Bearer is read as Basic: the organization key\'s Basic credential under any scheme word ("Token base64(<org key>:)") is accepted.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => authenticate(header) || (!BEARER.test(header ?? '') && authenticate((header ?? '').replace(/^\S+ +/, 'Basic ')));
    },
  },
  {
    name: 'bearer-key-one-char-more',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'A Bearer value is compared without its last character too: the API key with one character appended is accepted.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => authenticate(header) || (BEARER.test(header ?? '') && authenticate((header ?? '').replace(/.$/, '')));
    },
  },
  {
    name: 'basic-key-either-place',
    breaks: ['AUTH-004', 'AUTH-005'],
    description: 'The organization key is accepted on either side of the Basic colon, or with no colon at all.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => {
        if (authenticate(header) || !BASIC.test(header ?? '')) return authenticate(header);
        const decoded = basicOf(header) ?? '';
        const key = decoded.startsWith(':') ? decoded.slice(1) : decoded.includes(':') ? undefined : decoded;
        return key !== undefined && key !== '' && authenticate(`Basic ${b64(`${key}:`)}`);
      };
    },
  },
  {
    name: 'basic-key-as-password',
    // AUTH-004 too: the suite's near miss "the organization key in the other place" is then the right one.
    breaks: ['AUTH-002', 'AUTH-004', 'AUTH-005'],
    description: 'Basic is composed the other way: the organization key is taken as the password (":<org key>"), and "<org key>:" is refused.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => {
        if (!BASIC.test(header ?? '')) return authenticate(header);
        const decoded = Buffer.from((header ?? '').replace(/^basic +/i, ''), 'base64').toString('utf8');
        if (!decoded.startsWith(':') || decoded.length < 2) return false;
        return authenticate(`Basic ${Buffer.from(`${decoded.slice(1)}:`).toString('base64')}`);
      };
    },
  },
  {
    name: 'missing-credential-401',
    breaks: ['AUTH-003'],
    description: 'A request without an Authorization header is answered 401 (body status 401) instead of 403; a wrong credential still gets 403.',
    apply: ({ app }) =>
      editErrorBody(app, (body, reply) => {
        if (reply.statusCode !== 403 || reply.request.headers.authorization !== undefined) return;
        reply.code(401);
        body.status = 401;
      }),
  },
  {
    name: 'bearer-refused-on-connection-create',
    // Every check that creates a connection fails; the ones that need one cannot be judged.
    breaks: ['AUTH-001', 'CONN-001', 'CONN-002', 'CONN-003', 'CONN-004', 'CONN-005', 'CONN-006', 'CONN-007'],
    description: 'The user API key may not create connections: POST /api/connections with Bearer is answered 403 (Basic still works, and every other route takes the key).',
    apply: ({ app }) =>
      app.addHook('preValidation', async (request) => {
        if (isRoute(request, 'POST', ROUTES.connections) && BEARER.test(request.headers.authorization ?? '')) {
          throw new ApiError('forbidden', 'this API key may not create connections');
        }
      }),
  },
];

import type { Fault } from './fault.ts';

const BEARER = /^bearer +\S/i;
const BASIC = /^basic +\S/i;

export const authFaults: Fault[] = [
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
    breaks: ['AUTH-004'],
    description: 'A Bearer header is read up to its first token: "Bearer <api key> <anything>" is accepted.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => authenticate((header ?? '').replace(/^(bearer +\S+) +\S.*$/i, '$1'));
    },
  },
  {
    name: 'bearer-key-one-char-more',
    breaks: ['AUTH-004'],
    description: 'A Bearer value is compared without its last character too: the API key with one character appended is accepted.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => authenticate(header) || (BEARER.test(header ?? '') && authenticate((header ?? '').replace(/.$/, '')));
    },
  },
  {
    name: 'basic-key-either-place',
    breaks: ['AUTH-004'],
    description: 'The organization key is accepted on either side of the Basic colon, or with no colon at all.',
    apply: ({ config }) => {
      const authenticate = config.authenticate;
      config.authenticate = (header) => {
        if (authenticate(header) || !BASIC.test(header ?? '')) return authenticate(header);
        const decoded = Buffer.from((header ?? '').replace(/^basic +/i, ''), 'base64').toString('utf8');
        const key = decoded.startsWith(':') ? decoded.slice(1) : decoded.includes(':') ? undefined : decoded;
        return key !== undefined && key !== '' && authenticate(`Basic ${Buffer.from(`${key}:`).toString('base64')}`);
      };
    },
  },
];

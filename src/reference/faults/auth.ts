import type { Fault } from './fault.ts';

const BEARER = /^bearer +\S/i;
const BASIC = /^basic +\S/i;

export const authFaults: Fault[] = [
  {
    name: 'bearer-rejected',
    breaks: ['AUTH-001'],
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
];

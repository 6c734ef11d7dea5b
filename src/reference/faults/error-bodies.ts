import { editErrorBody, type Fault } from './fault.ts';

export const errorBodyFaults: Fault[] = [
  {
    name: 'error-status-as-string',
    breaks: ['ERR-001', 'BULK-001'],
    description: 'Every error body carries status as a string ("404") instead of an integer.',
    apply: ({ app }) =>
      editErrorBody(app, (body) => {
        body.status = String(body.status);
      }),
  },
  {
    name: 'error-status-mismatch',
    breaks: ['ERR-002', 'BULK-001'],
    description: 'Every error body carries status 500, whatever the HTTP status of the answer.',
    apply: ({ app }) =>
      editErrorBody(app, (body) => {
        body.status = 500;
      }),
  },
  {
    name: 'error-content-type-text',
    breaks: ['ERR-003'],
    description: 'Every error answer is labelled Content-Type: text/plain (the body is the same JSON text).',
    apply: ({ app }) =>
      editErrorBody(app, (_body, reply) => {
        reply.header('content-type', 'text/plain; charset=utf-8');
      }),
  },
];

import { expect, it } from 'vitest';
import { consoleSummary } from '../../src/report/console.ts';
import { EventLog, type NewEvent } from '../../src/report/events.ts';
import { foldEvents } from '../../src/report/from-events.ts';
import { junitXml } from '../../src/report/junit.ts';
import { Redactor } from '../../src/report/redact.ts';
import { renderHtml } from '../../src/report/render-html.ts';
import { loadRequirements } from '../../src/report/results.ts';

// Junk past the receiver's count cap is counted, not listed: the count reaches every report, summed
// over the passes (or shards) whose receivers counted it.

const requirements = loadRequirements();

const start: NewEvent = {
  type: 'run-start', tool: 'dss-conformance', kitVersion: '0.0.0', node: '24', target: 'http://127.0.0.1:1', embedded: true, faults: [],
  profile: 'reference', capabilities: { name: 'reference', kinds: {}, unsupported: {} }, seed: 1, runId: 'r1', replay: 'npx dss-conformance run --seed 1',
  apiVersions: ['2025-09-18'], settings: {},
};
const delivery = (seq: number): NewEvent => ({
  type: 'delivery',
  delivery: { seq, scenario: null, receivedAt: '2030-01-01T00:00:00.000Z', method: 'GET', path: '/junk', headers: {}, bodyBytes: 0, gzip: false, records: null, violations: [], status: 404 },
});

it('junk the receiver counted instead of listing is summed by kind and shown in the console, report.html and JUnit', () => {
  const log = new EventLog(undefined, new Redactor([]));
  const webhookCheck: NewEvent = { type: 'check-result', check: { id: 'WH-001', title: 'WH-001 a delivery is a POST', area: 'webhooks', level: 'MUST', section: 'Events', status: 'passed', durationMs: 1 } };
  for (const e of [start, webhookCheck, delivery(1), { type: 'receiver', notKept: { 'unknown path': 5, CONNECT: 1 } }, { type: 'receiver', notKept: { 'unknown path': 2 } }, { type: 'run-end', durationMs: 1 }] as NewEvent[]) log.emit(e);
  const folded = foldEvents(log.events, requirements);
  expect(folded.run.deliveriesNotKept).toEqual({ 'unknown path': 7, CONNECT: 1 });
  const line = "1 deliveries, 1 malformed or on an unknown path, and 8 more not listed (past the receiver's cap of junk records: unknown path 7, CONNECT 1)";
  expect(consoleSummary(folded.run)).toContain(`receiver: ${line}`);
  expect(renderHtml(folded, requirements)).toContain('and 8 more not listed (past the receiver&#39;s cap of junk records: unknown path 7, CONNECT 1)');
  expect(junitXml(folded.run, new Redactor([]))).toContain('(1 listed, and 8 more not listed');
});

it('a run whose receiver kept everything says nothing of it', () => {
  const log = new EventLog(undefined, new Redactor([]));
  for (const e of [start, delivery(1), { type: 'receiver' }, { type: 'run-end', durationMs: 1 }] as NewEvent[]) log.emit(e);
  const folded = foldEvents(log.events, requirements);
  expect(folded.run.deliveriesNotKept).toBeUndefined();
  expect(consoleSummary(folded.run)).not.toContain('not listed');
});

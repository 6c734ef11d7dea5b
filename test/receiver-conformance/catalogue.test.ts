import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { buildDelivery, recordHash } from '../../src/deliveries/build.ts';
import { loadReceiverChecks } from '../../src/receiver-conformance/run-checks.ts';
import { receiverBenignCatalogue, receiverFaultCatalogue } from '../../src/reference-receiver/index.ts';
import { loadRequirements, RECEIVER_SPEC, type CheckResult } from '../../src/report/results.ts';
import { runVerdict } from '../../src/report/verdict.ts';

const receivers = loadRequirements('receivers');

describe('the receiver catalogue', () => {
  test('its entries have the catalogue shape, a level of MUST or SHOULD, and one check each', async () => {
    expect(receivers.map((r) => r.id)).toEqual(Array.from({ length: 10 }, (_, i) => `RCV-${String(i + 1).padStart(3, '0')}`));
    for (const r of receivers) {
      expect(['MUST', 'SHOULD'], r.id).toContain(r.level);
      expect(r.spec).toBe(RECEIVER_SPEC);
      expect(r.section, r.id).toMatch(/^(Events|Authentication|Limits)/);
      for (const field of [r.text, r.interpretation ?? '']) expect(field.length, r.id).toBeGreaterThan(40);
    }
    const checks = await loadReceiverChecks();
    expect(checks.map((c) => c.id)).toEqual(receivers.map((r) => r.id));
  });

  test('the halves stay apart: run judges the service, receiver the receiver', () => {
    expect(loadRequirements().some((r) => r.id.startsWith('RCV-'))).toBe(false);
    expect(loadRequirements('all').length).toBe(loadRequirements().length + receivers.length);
  });

  test('every receiver requirement is broken by two faults of the reference receiver or more, which name only RCV IDs', () => {
    const ids = new Set(receivers.map((r) => r.id));
    const faults = receiverFaultCatalogue();
    for (const f of faults) for (const id of f.breaks) expect(ids.has(id), `${f.name}: ${id}`).toBe(true);
    for (const r of receivers) expect(faults.filter((f) => f.breaks.includes(r.id)).map((f) => f.name).length, r.id).toBeGreaterThanOrEqual(2);
    expect(receiverBenignCatalogue().length).toBeGreaterThan(0);
  });
});

describe('the levels policy', () => {
  const check = (id: string, status: CheckResult['status']): CheckResult => ({ id, title: id, area: 'receivers', level: receivers.find((r) => r.id === id)!.level, section: '', status, durationMs: 0, ...(status === 'skipped' ? { reason: 'not observable without an inspection endpoint', skipClass: 'not-observable' as const } : {}) });
  const all = (over: Record<string, CheckResult['status']>) => receivers.map((r) => check(r.id, over[r.id] ?? 'passed'));

  test('a SHOULD failure is a warning unless strict, where it fails the run', () => {
    const relaxed = runVerdict(receivers, all({ 'RCV-003': 'failed' }));
    expect(relaxed.verdict).toBe('CONFORMANT');
    expect(relaxed.warnings.map((w) => w.split(':')[0])).toEqual(['RCV-003']);
    expect(relaxed.levels.SHOULD.warn).toBe(1);
    const strict = runVerdict(receivers, all({ 'RCV-003': 'failed' }), [], undefined, { strict: true });
    expect(strict.verdict).toBe('NOT CONFORMANT');
    expect(strict.failures[0]).toMatch(/^RCV-003/);
  });

  test('a MUST failure fails the run either way', () => {
    expect(runVerdict(receivers, all({ 'RCV-002': 'failed' })).verdict).toBe('NOT CONFORMANT');
  });

  test('a SHOULD requirement not observable leaves the run CONFORMANT, INCOMPLETE under strict', () => {
    const skipped = all({ 'RCV-007': 'skipped', 'RCV-009': 'skipped' });
    expect(runVerdict(receivers, skipped).verdict).toBe('CONFORMANT');
    const strict = runVerdict(receivers, skipped, [], undefined, { strict: true });
    expect(strict.verdict).toBe('INCOMPLETE');
    expect(strict.unjudged).toEqual(['RCV-007 (skipped: not-observable)', 'RCV-009 (skipped: not-observable)']);
  });
});

describe('the delivery builder', () => {
  test('the spec\'s headers, a gzip body of the delivery, hashes of the field pairs', () => {
    const at = new Date('2026-11-26T03:00:00.000Z');
    const d = buildDelivery({ secret: 's"e\\cret', records: [{ a: 1, b: 'x' }, { big: 9007199254740993n }], metadata: { team: 'growth' }, timestamp: at });
    expect(d.headers).toMatchObject({ 'Accept-Encoding': 'gzip', 'Content-Type': 'application/json', 'Service-Signature-Timestamp': '2026-11-26T03:00:00.000Z', Authorization: 'Bearer s"e\\cret', 'Content-Length': String(d.body.length) });
    expect(d.headers['User-Agent']).toMatch(/^dss-conformance\/\d+\.\d+\.\d+$/);
    expect(d.headers['Content-Encoding']).toBeUndefined();
    const text = gunzipSync(d.body).toString('utf8');
    expect(text).toContain('"big":9007199254740993}');
    const json = JSON.parse(text);
    expect(json.event).toBe('sync.records');
    expect(json.object.metadata).toEqual({ team: 'growth' });
    expect(json.object.records[0]).toEqual({ hash: recordHash({ a: 1, b: 'x' }), fields: { a: 1, b: 'x' } });
    // The pairs decide, not their order; 1 and "1" differ.
    expect(recordHash({ b: 'x', a: 1 })).toBe(recordHash({ a: 1, b: 'x' }));
    expect(recordHash({ a: '1', b: 'x' })).not.toBe(recordHash({ a: 1, b: 'x' }));
  });

  test('overrides: a header removed or replaced, another event, no metadata, raw bytes', () => {
    const d = buildDelivery({ secret: 's', records: [], event: 'sync.other', headers: { Authorization: undefined, 'Service-Signature-Timestamp': 'not a date' } });
    expect(d.headers.Authorization).toBeUndefined();
    expect(d.headers['Service-Signature-Timestamp']).toBe('not a date');
    expect(JSON.parse(gunzipSync(d.body).toString())).toEqual({ event: 'sync.other', object: { id: 'dssc-sync', name: 'dssc sync', records: [] } });
    const raw = buildDelivery({ secret: 's', records: [], rawBody: Buffer.from('plain') });
    expect(raw.body.toString()).toBe('plain');
    expect(raw.headers['Content-Length']).toBe('5');
  });
});

import { beforeAll, beforeEach } from 'vitest';
import { settings } from './context.ts';

/** Whether the run selected (all, when it selected none) any of `ids`. */
const selects = (ids: readonly string[]): boolean => {
  const { selected } = settings();
  return selected === undefined || ids.some((id) => selected.includes(id));
};

// Runs that take wall time rather than work start with the first spec file (once) and go on
// while the others run; the checks that judge them wait for them at their turn. Only a run that
// selects a check they serve starts them, or loads their modules (a narrow run, such as a replay
// line or a fault's run, would only pay for them): WH-007 judges the slow-receiver run.
beforeAll(async () => {
  if (selects(['WH-007'])) await (await import('./webhook-answers.ts')).prestart();
});
// The schema cache stages of the fresh sources made for the bulk sync checks pass the same way;
// BULK-001, BULK-002 and BULK-004 read them.
beforeAll(async () => {
  if (selects(['BULK-001', 'BULK-002', 'BULK-004'])) await (await import('./schema-stage.ts')).prestartStages();
});

// A requirement the profile declares unsupported is not run: its checks are skipped as
// 'unsupported', which counts as judged for PROFILE requirements only (README › Verdicts).
beforeEach((t) => {
  const id = /^([A-Z]+-\d{3})\b/.exec(t.task.name)?.[1];
  const declared = id ? settings().profile.unsupported?.[id] : undefined;
  if (declared !== undefined) t.skip(`unsupported: declared by the profile: ${declared}`);
});

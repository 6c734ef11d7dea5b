import { beforeAll, beforeEach } from 'vitest';
import { settings } from './context.ts';
import { selectsAny, STAGE_CHECKS, WEBHOOK_PRESTART_CHECKS } from './prestart-checks.ts';

// Runs that take wall time rather than work start with the first spec file (once) and go on
// while the others run; the checks that judge them wait for them at their turn. Their modules are
// loaded only by a run that selects a check they serve.
beforeAll(async () => {
  if (selectsAny(settings().selected, WEBHOOK_PRESTART_CHECKS)) await (await import('./webhook-answers.ts')).prestart();
});
// The schema cache stages of the fresh sources made for the bulk sync checks pass the same way.
beforeAll(async () => {
  if (selectsAny(settings().selected, STAGE_CHECKS)) await (await import('./schema-stage.ts')).prestartStages();
});

// A requirement the profile declares unsupported is not run: its checks are skipped as
// 'unsupported', which counts as judged for PROFILE requirements only (README › Verdicts).
beforeEach((t) => {
  const id = /^([A-Z]+-\d{3})\b/.exec(t.task.name)?.[1];
  const declared = id ? settings().profile.unsupported?.[id] : undefined;
  if (declared !== undefined) t.skip(`unsupported: declared by the profile: ${declared}`);
});

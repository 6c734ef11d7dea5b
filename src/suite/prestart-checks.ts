// Which checks the setup file's early starts serve (src/suite/setup.ts): a run that selects none
// of them does not load the modules that do the starting (webhook fixtures, the receiver, the
// schema stage walks), which a narrow run (a replay line, a fault's run) would only pay for.

/** The checks that judge the slow-receiver run webhook-answers.ts starts early. */
export const WEBHOOK_PRESTART_CHECKS: readonly string[] = ['WH-007'];

/** The checks that read the schema-cache stage walks schema-stage.ts starts early. */
export const STAGE_CHECKS: readonly string[] = ['BULK-001', 'BULK-002', 'BULK-004'];

/** Whether a run that selected `selected` (undefined: all) runs any of `ids`. */
export const selectsAny = (selected: readonly string[] | undefined, ids: readonly string[]): boolean => selected === undefined || ids.some((id) => selected.includes(id));

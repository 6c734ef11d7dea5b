// What of a process a run could change and leave for the next run in the same process
// (test/helpers/run-server.ts compares it before and after each run).

/** The process-wide state a run could change and leave for the next. */
export function snapshot(): Map<string, string> {
  const state = new Map<string, string>();
  for (const name of process.eventNames()) state.set(`process listeners '${String(name)}'`, String(process.listenerCount(name)));
  for (const [label, stream] of [['stdout', process.stdout], ['stderr', process.stderr]] as const) {
    for (const name of stream.eventNames()) state.set(`${label} listeners '${String(name)}'`, String(stream.listenerCount(name)));
    state.set(`${label}.write`, Object.prototype.hasOwnProperty.call(stream, 'write') ? 'replaced' : 'own');
  }
  const handles = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) handles.set(kind, (handles.get(kind) ?? 0) + 1);
  for (const [kind, n] of handles) state.set(`active ${kind}`, String(n));
  state.set('exitCode', String(process.exitCode));
  return state;
}

export function differences(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).map((k) => `${k}: ${before.get(k) ?? 'none'} before, ${after.get(k) ?? 'none'} after`);
}

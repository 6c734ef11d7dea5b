import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { perRun, resetRunState } from '../../src/run-state.ts';
import { ROOT } from './run-cli.ts';

// The test run server keeps one vitest worker thread for many runs (src/runner/kept-pool.ts): the
// kit's modules stay loaded in it, so what a module keeps at its top level would reach the next
// run. Every such variable of src/ is either put back at each run's start (the module registers a
// reset with perRun, src/run-state.ts) or listed here with why it is the same for every run. A new
// one that is neither fails here, before it can carry one run's state into another.

/** Module-level state that does not depend on the run, by file, with the reason. */
const RUN_INDEPENDENT: Record<string, { names: string[]; why: string }> = {
  'src/client/rate-limiter.ts': { names: ['instance'], why: "reset by http-client.ts's perRun (resetClientState)" },
  'src/client/slots.ts': { names: ['byOrigin'], why: "reset by http-client.ts's perRun (resetClientState)" },
  'src/client/target-state.ts': { names: ['byBaseUrl'], why: "reset by http-client.ts's perRun (resetClientState)" },
  'src/deliveries/build.ts': { names: ['version'], why: "the package's version" },
  'src/runner/run-events.ts': { names: ['version'], why: "the package's version" },
  'src/report/certificate.ts': { names: ['catalogue'], why: 'a file of the package' },
  'src/generators/input-space.ts': { names: ['model'], why: 'schemas/input-space.json, read once' },
  'src/generators/from-schema.ts': { names: ['stream'], why: 'set for one generated value only, undefined again after it' },
  'src/profile/profile.ts': { names: ['validateProfile'], why: 'the compiled validator of a fixed schema' },
  'src/report/baseline.ts': { names: ['compiled'], why: 'the compiled validator of a fixed schema' },
  'src/runner/config-file.ts': { names: ['compiled'], why: 'compiled validators of fixed schemas' },
  'src/schemas.ts': { names: ['ajv', 'compiled'], why: 'compiled validators of fixed schemas' },
  'src/receiver-conformance/registry.ts': { names: ['registered'], why: "the receiver command's checks, registered at load; never in the suite's worker" },
  'src/reference/faults/deliveries.ts': { names: ['bomb'], why: "the reference's, in the main thread (a process's runs are reset by test/helpers/run-server.ts's checks), never in the suite's worker" },
  'src/runner/run-suite.ts': { names: ['ran'], why: 'the main thread\'s, set at each pass\'s start' },
  'src/runner/kept-pool.ts': { names: ['kept', 'enabled', 'threadsStarted', 'dropped'], why: 'the kept thread itself, in the main thread' },
  'src/runner/kept-thread.ts': { names: ['before', 'baseline', 'served', 'rpcListeners', 'runner', 'starts'], why: 'the kept thread\'s own bookkeeping' },
  'src/run-state.ts': { names: ['resets'], why: 'the registry itself' },
};

const DECLARATIONS = [
  /^(?:export )?let ([A-Za-z_$][\w$]*)/gm,
  /^(?:export )?const ([A-Za-z_$][\w$]*)\s*(?::(?![^=\n]*Readonly)[^=\n]+)?=\s*new (?:Map|Set|WeakMap|WeakSet)\b(?!\s*(?:<[^>]*>)?\(\[)(?![^\n]*\.map\()/gm,
  /^(?:export )?const ([A-Za-z_$][\w$]*)\s*:[^=\n]*\[\]\s*=\s*\[\]/gm,
  /^\s+(?:private |protected |public )?static (?!readonly)([A-Za-z_$][\w$]*)\s*[:=]/gm,
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each file of src/ with module-level mutable state, and the variables. */
function moduleState(): Map<string, { names: string[]; resets: boolean }> {
  const found = new Map<string, { names: string[]; resets: boolean }>();
  for (const path of sources(join(ROOT, 'src'))) {
    const text = readFileSync(path, 'utf8');
    const names = DECLARATIONS.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!));
    if (names.length > 0) found.set(relative(ROOT, path).replaceAll('\\', '/'), { names, resets: /\bperRun\(/.test(text) });
  }
  return found;
}

test('every module-level variable of src/ is put back at a run\'s start or is the same for every run', () => {
  const unaccounted = [...moduleState()].flatMap(([file, { names, resets }]) =>
    resets ? [] : names.filter((n) => !RUN_INDEPENDENT[file]?.names.includes(n)).map((n) => `${file}: ${n}`),
  );
  expect(unaccounted, 'register a reset with perRun (src/run-state.ts), or list it above with why it is run-independent').toEqual([]);
});

test('the scan finds the state it is meant to find (a scan that finds nothing would pass anything)', () => {
  const found = moduleState();
  expect(found.get('src/suite/context.ts')).toEqual({ names: expect.arrayContaining(['cachedSettings', 'counter', 'memo', 'learned']), resets: true });
  expect(found.get('src/client/rate-limiter.ts')?.names).toEqual(['instance']);
  // Every listed name still exists: a stale entry would excuse a new variable of the same name.
  for (const [file, { names }] of Object.entries(RUN_INDEPENDENT)) expect(found.get(file)?.names, file).toEqual(expect.arrayContaining(names));
});

test('resetRunState runs every registered reset, awaited, once per call', async () => {
  const calls: string[] = [];
  perRun(async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    calls.push('async');
  });
  perRun(() => void calls.push('sync'));
  await resetRunState();
  expect(calls).toEqual(['async', 'sync']);
});

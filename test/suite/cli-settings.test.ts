import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/cli-errors.ts';
import { suggest } from '../../src/cli-flags.ts';
import { loadRequirements } from '../../src/report/results.ts';
import { configSchemaPath } from '../../src/runner/config-file.ts';
import { resolveRunFlags } from '../../src/runner/config-resolve.ts';
import { replayLines } from '../../src/runner/replay.ts';
import { envName, RUN_FLAGS, type RunFlag } from '../../src/runner/run-flags.ts';
import { selectRequirements } from '../../src/runner/selection.ts';
import { ROOT } from './run-cli.ts';

// Every run setting three ways (flag, DSS_* variable, --config key), which one wins, what
// --only/--exclude select, and the replay line that repeats them: in-process, no run needed.

const dir = mkdtempSync(join(tmpdir(), 'dssc-config-'));
let n = 0;
function configFile(content: unknown): string {
  const file = join(dir, `c${n++}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** A value of the flag's kind, distinct per source, as a flag, a variable and a config value give it. */
function sample(flag: RunFlag, source: 'flag' | 'env' | 'config'): { argv: string[]; env?: string; config?: unknown; expected: unknown } {
  const i = { flag: 1, env: 2, config: 3 }[source];
  switch (flag.kind) {
    case 'boolean':
      return { argv: [`--${flag.name}`], env: '1', config: true, expected: true };
    case 'list':
      return { argv: [`--${flag.name}`, `A${i},B${i}`], env: `A${i},B${i}`, config: [`A${i}`, `B${i}`], expected: [`A${i}`, `B${i}`] };
    case 'repeat':
      // Values kept whole, commas included; a variable holds one per line.
      return { argv: [`--${flag.name}`, `a${i}=1,2`, `--${flag.name}`, `b${i}=x`], env: `a${i}=1,2\nb${i}=x`, config: [`a${i}=1,2`, `b${i}=x`], expected: [`a${i}=1,2`, `b${i}=x`] };
    case 'int':
      return { argv: [`--${flag.name}=${flag.range![1] - i}`], env: String(flag.range![1] - i), config: flag.range![1] - i, expected: String(flag.range![1] - i) };
    default:
      if (flag.secret) return { argv: [`--${flag.name}=secret-${i}`], env: `secret-${i}`, config: { $env: 'DSSC_TEST_SECRET' }, expected: `secret-${i}` };
      if (flag.name === 'max-duration') return { argv: [`--${flag.name}`, `${i}0s`], env: `${i}0s`, config: `${i}0s`, expected: `${i}0s` };
      // Only a config file's relative paths are resolved (against its folder).
      return { argv: [`--${flag.name}`, `v${i}`], env: `v${i}`, config: `v${i}`, expected: flag.path && source === 'config' ? join(dir, `v${i}`) : `v${i}` };
  }
}

const settable = RUN_FLAGS.filter((f) => f.name !== 'config');

describe('every run flag is also a DSS_* variable and a --config key; flag > env > file', () => {
  test.each(settable.map((f) => [f.name, f] as const))('%s', (_name, flag) => {
    const fromFlag = sample(flag, 'flag');
    const fromEnv = sample(flag, 'env');
    const fromFile = sample(flag, 'config');
    const env = { DSSC_TEST_SECRET: 'secret-3' };
    const file = configFile({ [flag.name]: fromFile.config });
    // Each source alone.
    expect(resolveRunFlags(fromFlag.argv, {}).values[flag.name]).toEqual(fromFlag.expected);
    expect(resolveRunFlags([], { [envName(flag.name)]: fromEnv.env }).values[flag.name]).toEqual(fromEnv.expected);
    const filed = resolveRunFlags(['--config', file], env);
    expect(filed.values[flag.name]).toEqual(flag.secret ? 'secret-3' : fromFile.expected);
    expect(filed.sources[flag.name]?.label).toBe(`config ${file}: ${flag.name}`);
    // The order: the file loses to the variable, the variable to the flag.
    if (flag.kind !== 'boolean') {
      expect(resolveRunFlags(['--config', file], { ...env, [envName(flag.name)]: fromEnv.env }).values[flag.name]).toEqual(fromEnv.expected);
      expect(resolveRunFlags(['--config', file, ...fromFlag.argv], { ...env, [envName(flag.name)]: fromEnv.env }).values[flag.name]).toEqual(fromFlag.expected);
    }
    // An empty variable is unset (a shell's `DSS_X=`): the file's value stands.
    expect(resolveRunFlags(['--config', file], { ...env, [envName(flag.name)]: '' }).sources[flag.name]?.kind).toBe('config');
  });

  test('--config itself can come from DSS_CONFIG', () => {
    const file = configFile({ seed: 5 });
    expect(resolveRunFlags([], { DSS_CONFIG: file }).values.seed).toBe('5');
  });

  test('the config schema lists exactly the run flags', () => {
    const schema = JSON.parse(readFileSync(configSchemaPath, 'utf8')) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).filter((k) => !k.startsWith('$')).sort()).toEqual(settable.map((f) => f.name).sort());
  });

  test('the README flag table names every flag with its variable', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const f of RUN_FLAGS) expect(readme, f.name).toMatch(new RegExp(`^\\| [^|]*\`--${f.name}\\b[^|]*\\| [^|]*\`${envName(f.name)}\``, 'm'));
  });

  test('the README\'s example config file is valid', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const example = /```json\n(\{\n {2}"\$schema": "[^"]*config\.schema\.json"[\s\S]*?)```/.exec(readme)![1]!;
    const { values, sources } = resolveRunFlags(['--config', configFile(example)], { STAGING_DSS_KEY: 'k', STAGING_DSS_ORG_KEY: 'o' });
    expect(values['base-url']).toBe('https://staging.example.com');
    expect(sources['api-key']?.variable).toBe('STAGING_DSS_KEY');
  });

  test('relative paths in a config file are relative to its folder; "reference" stays the built-in profile', () => {
    const file = configFile({ baseline: 'known.json', adapter: './a/adapter.mjs', profile: 'reference' });
    const { values } = resolveRunFlags(['--config', file], {});
    expect(values.baseline).toBe(join(dir, 'known.json'));
    expect(values.adapter).toBe(join(dir, 'a/adapter.mjs'));
    expect(values.profile).toBe('reference');
  });

  const refused: Array<[string, unknown, NodeJS.ProcessEnv, RegExp]> = [
    ['not JSON', '{ seed: 1', {}, /: not JSON/],
    ['not an object', '[1]', {}, /must be a JSON object/],
    ['a typo', { 'num-run': 3 }, {}, /unknown setting 'num-run' \(did you mean num-runs\?/],
    ['a flag spelled with dashes', { '--seed': 3 }, {}, /unknown setting '--seed' \(did you mean seed\?/],
    ['a literal secret', { 'api-key': 'k-1234' }, {}, /\/api-key: a secret is not written in a config file; give it as \{"\$env": "VARIABLE"\}/],
    ['a wrong type', { 'num-runs': 'many' }, {}, /\/num-runs must be integer/],
    ['a value out of range', { 'num-runs': 0 }, {}, /\/num-runs must be >= 1/],
    ['a negative seed', { seed: -5 }, {}, /\/seed must be >= 0/],
    ['an unset variable', { 'api-key': { $env: 'DSSC_NOT_SET_ANYWHERE' } }, {}, /\/api-key: environment variable DSSC_NOT_SET_ANYWHERE is not set/],
    ['a nested config', { config: 'other.json' }, {}, /cannot name another config file/],
  ];
  test.each(refused)('a config file with %s is one UsageError line', (_label, content, env, message) => {
    const file = configFile(content);
    expect(() => resolveRunFlags(['--config', file], env)).toThrow(UsageError);
    expect(() => resolveRunFlags(['--config', file], env)).toThrow(message);
  });

  test('a missing config file, a bad boolean variable', () => {
    expect(() => resolveRunFlags(['--config', join(dir, 'nope.json')], {})).toThrow(/config .*nope\.json: no such file/);
    expect(() => resolveRunFlags([], { DSS_ALLOW_INCOMPLETE: 'maybe' })).toThrow(/DSS_ALLOW_INCOMPLETE must be true or false \(1 or 0\), got "maybe"/);
  });
});

describe('--only and --exclude select by ID, glob, area and level', () => {
  const requirements = loadRequirements();
  const all = requirements.map((r) => r.id);
  const select = (only: string[], exclude: string[] = []) => selectRequirements(requirements, only, exclude);

  test.each([
    [['EHS-002'], [], ['EHS-002']],
    [['ehs-002'], [], ['EHS-002']],
    [['WH-00?'], [], all.filter((id) => /^WH-00\d$/.test(id))],
    [['WH-0*'], [], all.filter((id) => /^WH-0/.test(id))],
    [['auth'], [], requirements.filter((r) => r.spec === 'auth.spec.ts').map((r) => r.id)],
    [['PROFILE'], [], requirements.filter((r) => r.level === 'PROFILE').map((r) => r.id)],
    [['must'], [], requirements.filter((r) => r.level === 'MUST').map((r) => r.id)],
    [['auth', 'EHS-002'], ['AUTH-002'], requirements.filter((r) => (r.spec === 'auth.spec.ts' && r.id !== 'AUTH-002') || r.id === 'EHS-002').map((r) => r.id)],
    [[], ['webhooks'], requirements.filter((r) => r.spec !== 'webhooks.spec.ts').map((r) => r.id)],
    [[], ['MUST', 'INFERRED'], requirements.filter((r) => r.level === 'PROFILE').map((r) => r.id)],
    [['webhooks'], ['WH-01*', 'PROFILE'], requirements.filter((r) => r.spec === 'webhooks.spec.ts' && !r.id.startsWith('WH-01') && r.level !== 'PROFILE').map((r) => r.id)],
  ])('--only %j --exclude %j', (only, exclude, expected) => {
    expect(expected.length).toBeGreaterThan(0);
    expect(select(only, exclude)).toEqual(expected);
  });

  test('nothing named: every requirement, unnarrowed', () => {
    expect(select([])).toBeUndefined();
  });

  test.each([
    [['NOPE-001'], [], /--only: unknown requirement ID NOPE-001/],
    [['EHS-02'], [], /did you mean EHS-002\?/],
    [['webhook'], [], /--only: not a requirement ID, glob, area or level: webhook \(did you mean webhooks\?/],
    [['ZZ-*'], [], /--only: ZZ-\* matches no requirement ID/],
    [[], ['MUSTT'], /--exclude: .*did you mean MUST\?/],
    [['auth'], ['auth'], /--only auth --exclude auth leaves no requirement to run/],
  ])('--only %j --exclude %j is refused', (only, exclude, message) => {
    expect(() => select(only, exclude)).toThrow(UsageError);
    expect(() => select(only, exclude)).toThrow(message);
  });
});

describe('the replay line repeats every setting that shaped the run, wherever it came from', () => {
  const target = ['--base-url', 'http://127.0.0.1:8080/dss', '--api-key=k1-secret', '--org-key=o1-secret', '--profile', 'my target.json', '--max-rps', '50', '--receiver-host', '0.0.0.0', '--receiver-port', '9000', '--receiver-public-url', 'https://tunnel.example/x', '--timeout-ms', '5000', '--num-runs', '4', '--allow-incomplete', '--only', 'auth', '--exclude', 'AUTH-002', '--reports', '/tmp/r'];

  test('from flags: secrets as variables, the selection only in the whole-run line, no --reports', () => {
    const lines = replayLines(resolveRunFlags(target, {}), { embedded: false, seed: 42 });
    expect(lines.check).toBe(`npx dss-conformance run --base-url http://127.0.0.1:8080/dss --api-key "$DSS_API_KEY" --org-key "$DSS_ORG_KEY" --profile 'my target.json' --seed 42 --num-runs 4 --timeout-ms 5000 --max-rps 50 --receiver-host 0.0.0.0 --receiver-port 9000 --receiver-public-url https://tunnel.example/x --allow-incomplete`);
    expect(lines.run).toBe(`${lines.check} --only auth --exclude AUTH-002`);
    expect(lines.run).not.toMatch(/secret|--reports/);
  });

  test('from variables and a config file: the same line, a config secret named by its own variable', () => {
    const file = configFile({ 'base-url': 'http://127.0.0.1:8080/dss', 'api-key': { $env: 'STAGING_KEY' }, 'max-rps': 50, only: ['auth'], 'api-version': 'all', fault: ['x'] });
    const lines = replayLines(resolveRunFlags(['--config', file], { STAGING_KEY: 'k1-secret', DSS_ORG_KEY: 'o1-secret', DSS_NUM_RUNS: '4' }), { embedded: false, seed: 42 });
    expect(lines.check).toBe('npx dss-conformance run --base-url http://127.0.0.1:8080/dss --api-key "$STAGING_KEY" --org-key "$DSS_ORG_KEY" --seed 42 --num-runs 4 --max-rps 50 --fault x');
    // --api-version all belongs to the whole run; a check's replay names its version instead.
    expect(lines.run).toBe(`${lines.check} --only auth --api-version all`);
  });

  test('the embedded reference: no target, no keys; userinfo in a URL is never printed', () => {
    expect(replayLines(resolveRunFlags(['--fault', 'a', '--variant', 'b'], {}), { embedded: true, seed: 1 }).check).toBe('npx dss-conformance run --seed 1 --fault a --variant b');
    expect(replayLines(resolveRunFlags(['--base-url', 'https://u:pw@x.example', '--api-key=k'], {}), { embedded: false, seed: 1 }).check).not.toContain('pw');
  });
});

test('did you mean: the closest within a few edits, or the only candidate a prefix names', () => {
  const flags = RUN_FLAGS.map((f) => `--${f.name}`);
  expect(suggest('--num-run', flags)).toBe('--num-runs');
  expect(suggest('--sed', flags)).toBe('--seed');
  expect(suggest('--basurl', flags)).toBe('--base-url');
  expect(suggest('--allow', flags)).toBe('--allow-incomplete');
  expect(suggest('--exlcude', flags)).toBe('--exclude');
  expect(suggest('--verbose', flags)).toBeUndefined();
});

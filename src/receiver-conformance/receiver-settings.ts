import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { loadBaseline, type Baseline } from '../report/baseline.ts';
import type { Source } from '../runner/config-resolve.ts';
import type { FlagSpec, SettingsCommand } from '../runner/run-flags.ts';
import { parseIntFlag, UsageError } from '../cli-errors.ts';
import { parseDuration } from '../runner/duration.ts';
import { redactUserinfo, shellQuote } from '../runner/replay.ts';
import { parseHttpUrl } from '../runner/target-url.ts';
import { DEFAULT_MAX_AGE_SECONDS, DEFAULT_RESPONSE_TIMEOUT_MS, loadReceiverProfile } from './profile.ts';
import type { ReceiverTarget } from './registry.ts';

// `dss-conformance receiver`'s flags, resolved with the profile and the environment into one
// settings object, and the replay lines that repeat the run without ever holding the secret.

export const RECEIVER_FLAGS = {
  url: { type: 'string' },
  secret: { type: 'string' },
  'inspect-url': { type: 'string' },
  profile: { type: 'string' },
  'max-age-seconds': { type: 'string' },
  'response-timeout-ms': { type: 'string' },
  strict: { type: 'boolean' },
  seed: { type: 'string' },
  'num-runs': { type: 'string' },
  only: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  reports: { type: 'string' },
  'max-rps': { type: 'string' },
  'max-duration': { type: 'string' },
  'allow-incomplete': { type: 'boolean' },
  config: { type: 'string' },
  baseline: { type: 'string' },
  fault: { type: 'string' },
  variant: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The variable the secret is read from when no flag gives it, and the one the replay line names. */
export const SECRET_VARIABLE = 'DSSC_RECEIVER_SECRET';

const FILES = new Set(['profile', 'reports', 'config', 'baseline']);
const INTS: Record<string, readonly [number, number]> = { 'max-age-seconds': [1, 86_400], 'response-timeout-ms': [1, 600_000], seed: [0, 2_147_483_647], 'num-runs': [1, 100_000], 'max-rps': [1, 10_000] };

/**
 * Read as run reads its settings (src/runner/config-resolve.ts): flag > variable > --config file.
 * The variables are DSS_RECEIVER_*, apart from run's DSS_* (one CI job may set both); the secret
 * keeps its DSSC_RECEIVER_SECRET.
 */
export const RECEIVER_SETTINGS: SettingsCommand = {
  command: 'receiver',
  prefix: 'DSS_RECEIVER_',
  flags: Object.entries(RECEIVER_FLAGS)
    .filter(([name]) => name !== 'help')
    .map(([name, o]): FlagSpec => ({
      name,
      kind: o.type === 'boolean' ? 'boolean' : 'multiple' in o ? 'list' : 'string',
      ...(INTS[name] ? { range: INTS[name] } : {}),
      ...(FILES.has(name) ? { path: true } : {}),
      ...(name === 'secret' ? { secret: true, variable: SECRET_VARIABLE } : {}),
    })),
};

export interface ReceiverSettings {
  /** The receiver under test; undefined: the reference receiver is started. */
  target?: ReceiverTarget | undefined;
  /** A secret given without --url: the reference receiver uses it. */
  secret?: string | undefined;
  urlSecrets: string[];
  maxAgeSeconds: number;
  responseTimeoutMs: number;
  fault?: string | undefined;
  variant?: string | undefined;
  faults: string[];
  strict: boolean;
  seed: number;
  numRuns: number;
  only: string[];
  exclude: string[];
  reports: string;
  maxRps?: number | undefined;
  maxDurationMs: number;
  allowIncomplete: boolean;
  /** --baseline: known failures, with the file named as given. */
  baseline?: (Baseline & { file: string }) | undefined;
  runId: string;
  profileLabel: string;
  publicSettings: Record<string, unknown>;
  replay: { check: string; run: string };
}

type Values = { [K in keyof typeof RECEIVER_FLAGS]?: (typeof RECEIVER_FLAGS)[K] extends { multiple: true } ? string[] : (typeof RECEIVER_FLAGS)[K] extends { type: 'boolean' } ? boolean : string };

/** values: flags, variables and the --config file merged (resolveSettings); sources: where each came from, for errors and the replay line. */
export function resolveReceiverSettings(values: Values, env: NodeJS.ProcessEnv = process.env, sources: Record<string, Source> = {}): ReceiverSettings {
  const profile = values.profile ? loadReceiverProfile(values.profile, env) : {};
  const int = (name: keyof typeof RECEIVER_FLAGS, min: number, max: number) => parseIntFlag(name, values[name] as string | undefined, min, max, sources[name]?.label);
  const url = values.url ?? profile.url;
  const flagSecret = values.secret ?? (env[SECRET_VARIABLE] || undefined);
  const secret = flagSecret ?? profile.secret;
  if (secret !== undefined && secret.trim() === '') throw new UsageError('--secret is empty');
  if (secret !== undefined) checkHeaderSafe(secret);
  const inspectUrl = values['inspect-url'] ?? profile.inspectUrl;
  const urlSecrets = [url, inspectUrl].flatMap((u, i) => (u ? parseHttpUrl(i === 0 ? (values.url ? '--url' : '--profile url') : values['inspect-url'] ? '--inspect-url' : '--profile inspectUrl', u).secrets : []));
  if (url && !secret) throw new UsageError(`--secret (or ${SECRET_VARIABLE}, or the profile's secret) is required with --url`);
  if (url && (values.fault || values.variant)) throw new UsageError(`--${values.fault ? 'fault' : 'variant'} applies to the reference receiver only (without --url)`);
  if (!url && inspectUrl) throw new UsageError('--inspect-url goes with --url: the reference receiver serves its own');
  if (values.fault && values.variant) throw new UsageError('--fault and --variant: one at a time');
  const maxAgeSeconds = int('max-age-seconds', 1, 86_400) ?? profile.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
  const responseTimeoutMs = int('response-timeout-ms', 1, 600_000) ?? profile.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS;
  const seed = int('seed', 0, 2_147_483_647) ?? Math.floor(Math.random() * 2 ** 31);
  const numRuns = int('num-runs', 1, 100_000) ?? 25;
  const maxRps = int('max-rps', 1, 10_000);
  const maxDurationMs = parseDuration(values['max-duration'], sources['max-duration']?.label ?? '--max-duration') ?? 30 * 60_000;
  const baseline = values.baseline ? { file: values.baseline, ...loadBaseline(resolve(values.baseline)) } : undefined;

  // The replay lines: every setting that shapes the run, the secret as the variable that holds it.
  const words: string[] = ['npx dss-conformance receiver'];
  if (values.profile) words.push(`--profile ${shellQuote(values.profile)}`);
  if (values.url) words.push(`--url ${shellQuote(redactUserinfo(values.url))}`);
  if (flagSecret !== undefined && url) words.push(`--secret "$${sources.secret?.variable ?? SECRET_VARIABLE}"`);
  if (values['inspect-url']) words.push(`--inspect-url ${shellQuote(redactUserinfo(values['inspect-url']))}`);
  for (const name of ['max-age-seconds', 'response-timeout-ms', 'num-runs', 'max-rps', 'max-duration', 'baseline', 'fault', 'variant'] as const) if (values[name] !== undefined) words.push(`--${name} ${shellQuote(values[name])}`);
  words.push(`--seed ${seed}`);
  if (values.strict) words.push('--strict');
  const selection = [...(values.only?.length ? [`--only ${shellQuote(commaList(values.only).join(','))}`] : []), ...(values.exclude?.length ? [`--exclude ${shellQuote(commaList(values.exclude).join(','))}`] : [])];

  const publicSettings: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) if (k !== 'secret' && k !== 'help' && v !== undefined) publicSettings[k] = v;
  return {
    ...(url ? { target: { url, secret: secret!, inspectUrl, maxAgeSeconds, responseTimeoutMs } } : {}),
    ...(!url && secret ? { secret } : {}),
    urlSecrets, maxAgeSeconds, responseTimeoutMs,
    fault: values.fault, variant: values.variant, faults: [values.fault, values.variant].filter((x): x is string => x !== undefined),
    strict: values.strict ?? false, seed, numRuns, only: commaList(values.only), exclude: commaList(values.exclude),
    reports: values.reports ?? 'reports', maxRps, maxDurationMs, allowIncomplete: values['allow-incomplete'] ?? false, baseline,
    runId: randomBytes(4).toString('hex'),
    profileLabel: values.profile ?? 'none (flags)',
    publicSettings,
    replay: { check: words.join(' '), run: [...words, ...selection].join(' ') },
  };
}

/** --only A,B --only C: A, B, C (as run takes them). */
const commaList = (values: string[] | undefined): string[] => (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');

/** The secret travels in a header: a control character or one past Latin-1 cannot (RFC 9110 §5.5). */
export function checkHeaderSafe(secret: string): void {
  if (/[\x00-\x1f\x7f]|[^\x00-\xff]/.test(secret)) throw new UsageError('--secret holds a control character or one an HTTP header cannot carry (only visible ASCII and Latin-1 can be sent after Bearer)');
}

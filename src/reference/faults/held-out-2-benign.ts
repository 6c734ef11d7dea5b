import type { Fault } from './fault.ts';
import { heldOut2ApiVariants } from './held-out-2-benign-api.ts';
import { heldOut2DeliveryVariants } from './held-out-2-benign-deliveries.ts';
import { heldOut2MoreVariants } from './held-out-2-benign-more.ts';

/**
 * Held-out benign items, round 2: conforming-but-unusual targets written from the spec alone
 * (API answers in held-out-2-benign-api.ts; runs and deliveries in held-out-2-benign-deliveries.ts;
 * a second batch in held-out-2-benign-more.ts). All are looked up by --variant; they fall in three
 * sets, by what their measurement showed.
 */
const ALL: readonly Fault[] = [...heldOut2ApiVariants, ...heldOut2DeliveryVariants, ...heldOut2MoreVariants];

const pick = (names: readonly string[]): Fault[] =>
  names.map((name) => {
    const found = ALL.find((v) => v.name === name);
    if (!found) throw new Error(`held-out-2-benign.ts names no variant ${name}`);
    return found;
  });

/** Conforming under the reference profile, and unlike any earlier variant: they run in the benign matrix. */
export const heldOut2BenignVariants: readonly Fault[] = pick([
  'hb2-json-answer-forms',
  'hb2-extra-response-headers',
  'hb2-ids-numeric-and-long',
  'hb2-auth-url-opaque',
  'hb2-slow-first-answers',
  'hb2-error-handling-set-defaults',
  'hb2-rate-limited',
  'hb2-run-synchronous',
  'hb2-run-read-omitempty',
  'hb2-runs-queued-long',
  'hb2-model-sync-answer-id-only',
  'hb2-capture-log-forms',
  'hb2-delivery-x-gzip',
  'hb2-delivery-number-forms',
  'hb2-delivery-hash-base64',
  'hb2-batch-size-cap-100',
]);

/** A profile edit: what a target of the variant's shape answers in its profile where the spec is silent. */
export type ProfileEdit = (profile: Record<string, any>) => void;

/**
 * Conforming, but each answers a question the spec leaves open otherwise than the reference
 * profile does: the suite must pass under the variant with the profile edited as its target's
 * would be (test/suite/benign-profiled.test.ts), and, where no profile could say it before,
 * the profile gained the answer (pointers.connectionId, versions.unknownDates).
 */
export const heldOut2ProfiledVariants: ReadonlyArray<{ variant: Fault; profile: ProfileEdit }> = [
  {
    variant: pick(['hb2-connection-answer-flat'])[0]!,
    profile: (p) => {
      p.pointers = { ...p.pointers, connectionId: '/id', authUrl: '/auth_url' };
      const d = p.adapter.declarative;
      d.createWebhookConnection = { ...d.createWebhookConnection, id: '/id', secret: '/configuration/secret' };
      d.createSourceConnection = { ...d.createSourceConnection, id: '/id' };
    },
  },
  {
    variant: pick(['hb2-unknown-version-nearest-earlier'])[0]!,
    profile: (p) => {
      p.versions = { ...p.versions, unknownDates: 'nearest-earlier' };
    },
  },
  {
    variant: pick(['hb2-omitted-version-oldest'])[0]!,
    profile: (p) => {
      p.versions = { ...p.versions, default: '2021-05-23' };
    },
  },
  {
    variant: pick(['hb2-put-null-resets-default'])[0]!,
    profile: (p) => {
      p.errorHandling = { ...p.errorHandling, putNull: 'clear' };
    },
  },
];

/**
 * Measured and kept for the record, not run by the matrices: each behaves as an earlier benign
 * variant does (named in src/reference/README.md › Held-out benign items, round 2), or, for
 * hb2-schemas-cached-at-once, passes only because a discovered database still has a stage.
 */
export const heldOut2MeasuredOnly: readonly Fault[] = ALL.filter(
  (v) => !heldOut2BenignVariants.includes(v) && !heldOut2ProfiledVariants.some((p) => p.variant === v),
);

import { UsageError } from '../cli-errors.ts';
import { didYouMean } from '../cli-flags.ts';
import { authFaults } from './faults/auth.ts';
import { bulkSyncFaults } from './faults/bulk-syncs.ts';
import { connectionFaults } from './faults/connections.ts';
import { deliveryFaults } from './faults/deliveries.ts';
import { deliveryReceiverFaults, deliveryReceiverVariants } from './faults/delivery-receiver.ts';
import { deliveryDataFaults } from './faults/delivery-data.ts';
import { errorBodyFaults } from './faults/error-bodies.ts';
import { errorHandlingFaults } from './faults/error-handling.ts';
import { mutationWebhookFaults } from './faults/mutation-webhooks.ts';
import type { Fault, ReferenceSeams } from './faults/fault.ts';
import { versionFaults } from './faults/versions.ts';
import { heldOutApiKept } from './faults/held-out-api.ts';
import { heldOut2Api } from './faults/held-out-2-api.ts';
import { heldOutDeliveryFaults } from './faults/held-out-webhooks.ts';
import { heldOutRunFaults } from './faults/held-out-webhook-runs.ts';
import { heldOut2RunFaults } from './faults/held-out-2-runs.ts';
import { heldOut2DeliveryFaults } from './faults/held-out-2-deliveries.ts';
import { mutationRouteFaults } from './faults/mutation-routes.ts';
import { benignVariants } from './faults/benign.ts';
import { wireVariants } from './faults/benign-wire.ts';
import { runFaults, runVariants } from './faults/benign-runs.ts';
import { dimensionVariants } from './faults/benign-dimensions.ts';
import { limitVariants } from './faults/benign-limits.ts';
import { answerVariants } from './faults/benign-answers.ts';
import { heldOutVariants } from './faults/held-out-benign.ts';
import { heldOut2BenignVariants, heldOut2MeasuredOnly, heldOut2ProfiledVariants } from './faults/held-out-2-benign.ts';

export type { Fault, ReferenceSeams } from './faults/fault.ts';

/**
 * Every fault the reference can inject, grouped by the requirement family it breaks. A fault
 * changes behaviour only through the seams (hooks on the fastify instance, wrapped store methods,
 * the mutable config and its delivery pipeline), so the core serves the spec without knowing faults exist.
 */
export const FAULTS: readonly Fault[] = [
  ...connectionFaults,
  ...bulkSyncFaults,
  ...versionFaults,
  ...errorHandlingFaults,
  ...authFaults,
  ...deliveryFaults,
  ...deliveryReceiverFaults,
  ...deliveryDataFaults,
  ...errorBodyFaults,
  ...runFaults,
  ...heldOutApiKept,
  ...heldOut2Api,
  ...heldOutDeliveryFaults,
  ...heldOutRunFaults,
  ...heldOut2RunFaults,
  ...heldOut2DeliveryFaults,
  ...mutationWebhookFaults,
  ...mutationRouteFaults,
];

export function faultNames(): string[] {
  return FAULTS.map((fault) => fault.name);
}

/** What the catalogue says about each fault, without the means to apply it (for listings and coverage). */
export function faultCatalogue(): { name: string; breaks: string[]; description: string; apiVersion?: string }[] {
  return FAULTS.map(({ name, breaks, description, apiVersion }) => ({ name, breaks: [...breaks], description, ...(apiVersion ? { apiVersion } : {}) }));
}

/** Conforming-but-unusual variants of the reference (breaks nothing): the suite must pass under each. */
export const BENIGN_VARIANTS: readonly Fault[] = [...benignVariants, ...wireVariants, ...deliveryReceiverVariants, ...runVariants, ...dimensionVariants, ...limitVariants, ...answerVariants, ...heldOutVariants, ...heldOut2BenignVariants];

/**
 * Conforming variants that need a profile answer other than the reference profile's (each with its
 * edit: test/suite/benign-profiled.test.ts runs them), and held-out items kept for the record only.
 */
export const PROFILED_VARIANTS = heldOut2ProfiledVariants;
const MEASURED_VARIANTS: readonly Fault[] = [...heldOut2ProfiledVariants.map((p) => p.variant), ...heldOut2MeasuredOnly];

/** Names --variant also takes beyond the catalogue: the profiled variants and the items kept for the record, which no listing shows. */
export function measuredVariantNames(): string[] {
  return MEASURED_VARIANTS.map((v) => v.name);
}

export function variantCatalogue(): { name: string; description: string }[] {
  return BENIGN_VARIANTS.map(({ name, description }) => ({ name, description }));
}

/** A fault or a benign variant, by name: both are applied through the same seams. */
export function faultByName(name: string): Fault {
  const fault = FAULTS.find((f) => f.name === name) ?? BENIGN_VARIANTS.find((f) => f.name === name) ?? MEASURED_VARIANTS.find((f) => f.name === name);
  if (!fault) throw new UsageError(`unknown fault '${name}' (${didYouMean(name, faultNames())}known: ${faultNames().join(', ')})`);
  return fault;
}

/** Looks every name up first, so that a typo fails before anything is changed. */
export function applyFaults(names: readonly string[], seams: ReferenceSeams): void {
  const faults = [...new Set(names)].map(faultByName);
  for (const fault of faults) fault.apply(seams);
}

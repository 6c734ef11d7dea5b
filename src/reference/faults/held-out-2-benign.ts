import type { Fault } from './fault.ts';
import { heldOut2ApiVariants } from './held-out-2-benign-api.ts';
import { heldOut2DeliveryVariants } from './held-out-2-benign-deliveries.ts';

/**
 * Held-out benign items, round 2: conforming-but-unusual targets written from the spec alone
 * (API answers in held-out-2-benign-api.ts; runs and deliveries in held-out-2-benign-deliveries.ts).
 * Looked up by --variant for measuring; the ones the benign matrix runs are in BENIGN_VARIANTS.
 */
export const heldOut2BenignVariants: readonly Fault[] = [...heldOut2ApiVariants, ...heldOut2DeliveryVariants];

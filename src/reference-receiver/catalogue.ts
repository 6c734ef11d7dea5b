import type { ReceiverSteps } from './steps.ts';

/** What a fault or variant may touch besides the steps. */
export interface FaultContext {
  /** How long a slow fault keeps an answer back: beyond the answer bound, within the checks' wait. */
  slowMs: number;
}

/** A receiver made to break (fault) or to bend without breaking (benign variant) the spec in one way. */
export interface ReceiverDeviation {
  name: string;
  /** RCV requirement IDs whose checks must fail under it; empty for a benign variant. */
  breaks: string[];
  description: string;
  apply(steps: ReceiverSteps, context: FaultContext): void;
}

/** Replaces one step with a function of the step it replaces. */
export function wrap<K extends keyof ReceiverSteps>(steps: ReceiverSteps, name: K, by: (original: ReceiverSteps[K]) => ReceiverSteps[K]): void {
  steps[name] = by(steps[name].bind(steps) as ReceiverSteps[K]);
}

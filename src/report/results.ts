import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.ts';

export type Level = 'MUST' | 'INFERRED' | 'PROFILE';

export interface Requirement {
  id: string;
  level: Level;
  section: string;
  spec: string;
  text: string;
  interpretation?: string;
}

export function loadRequirements(): Requirement[] {
  const file = join(packageRoot, 'specs', 'requirements.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { requirements: Requirement[] }).requirements;
}

/** One check's outcome: the event every report is made from. */
export interface CheckResult {
  id: string;
  title: string;
  /** The spec area (file name without .spec.*). */
  area: string;
  level: Level | 'UNKNOWN';
  section: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Why it was skipped (missing profile answer, precondition, not observed). */
  reason?: string;
  /** Failure message: evidence, redacted. */
  message?: string;
  durationMs: number;
}

export interface RunResult {
  tool: string;
  target: string;
  profile: string;
  seed: number;
  runId: string;
  startedAt: string;
  durationMs: number;
  replay: string;
  checks: CheckResult[];
  /** Errors outside any check (a spec that failed to load, an unhandled rejection). */
  errors: string[];
  /** Every request the capturing receiver got (secrets redacted), when webhook checks ran. */
  deliveries?: DeliveryRecord[] | undefined;
}

export interface DeliveryRecord {
  seq: number;
  scenario: string | null;
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyBytes: number;
  gzip: boolean;
  records: number | null;
  violations: string[];
  status: number;
}

export function summarize(run: RunResult): { passed: number; failed: number; skipped: number } {
  const count = (s: CheckResult['status']) => run.checks.filter((c) => c.status === s).length;
  return { passed: count('passed'), failed: count('failed') + run.errors.length, skipped: count('skipped') };
}

/** `npx dss-conformance run … --only ID`: what reproduces one check. */
export function replayCommand(run: RunResult, id: string): string {
  return `${run.replay} --only ${id}`;
}

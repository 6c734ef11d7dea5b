import { randomBytes } from 'node:crypto';
import { createSender } from '../../src/receiver-conformance/http.ts';
import type { ReceiverTarget } from '../../src/receiver-conformance/registry.ts';
import { runReceiverChecks } from '../../src/receiver-conformance/run-checks.ts';
import { startReferenceReceiver, type ReferenceReceiverOptions } from '../../src/reference-receiver/index.ts';
import { Redactor } from '../../src/report/redact.ts';
import { loadRequirements, type CheckResult } from '../../src/report/results.ts';

// The receiver checks against a reference receiver, in this process: what `dss-conformance
// receiver --fault/--variant` does, less its start-up, reports and console, so a matrix of
// dozens of cases costs seconds (test/reference-receiver/matrix.test.ts).

export const SEED = 20261126;

export interface Judged {
  results: CheckResult[];
  failed: string[];
  /** One line per check that did not pass, for an assertion's message. */
  summary: string;
}

/** `responseTimeoutMs` is the bound the checks hold answers to and the slow faults exceed (1.5 times it). */
export async function judgeReference(opts: Omit<ReferenceReceiverOptions, 'secret'>, numRuns = 5): Promise<Judged> {
  const secret = `whsec_${randomBytes(18).toString('base64url')}`;
  const responseTimeoutMs = opts.responseTimeoutMs ?? 10_000;
  const receiver = await startReferenceReceiver({ ...opts, secret, responseTimeoutMs });
  try {
    return await judgeReceiver({ url: receiver.url, inspectUrl: receiver.inspectUrl, secret, maxAgeSeconds: opts.maxAgeSeconds ?? 300, responseTimeoutMs }, numRuns);
  } finally {
    await receiver.close();
  }
}

/** The receiver checks against any receiver listening (strict: a SHOULD failure counts as failed). */
export async function judgeReceiver(target: ReceiverTarget, numRuns = 5): Promise<Judged> {
  const sender = createSender();
  try {
    const results = await runReceiverChecks({
      state: {
        target, sender, runId: randomBytes(4).toString('hex'), seed: SEED, numRuns,
        deadline: Date.now() + 600_000, exchanges: [], counter: 0, timeoutsInRow: 0,
      },
      requirements: loadRequirements('receivers'),
      strict: true,
      redactor: new Redactor([target.secret]),
    });
    const failed = results.filter((r) => r.status === 'failed').map((r) => r.id).sort();
    const summary = results.filter((r) => r.status !== 'passed').map((r) => `${r.id} ${r.status}: ${(r.message ?? r.reason ?? '').slice(0, 400)}`).join('\n');
    return { results, failed, summary };
  } finally {
    await sender.close();
  }
}

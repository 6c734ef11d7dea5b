import { readFileSync } from 'node:fs';
import { Redactor } from '../report/redact.ts';
import { cleanupClient, deleteResources, type DeleteOutcome } from './delete-resources.ts';
import type { DeleteJob } from './delete-created.ts';

// Deletes a run's resources; run in process at a run's end, and in a child process an interrupted
// run waits for (delete-created.ts: the job comes on stdin when DSSC_DELETE_JOB=stdin, the outcome goes to stdout
// as one JSON document, already redacted).

export async function runDeleteJob(job: DeleteJob, redactor = new Redactor(job.secrets)): Promise<DeleteOutcome> {
  const client = cleanupClient({ ...job.access, redactor });
  return deleteResources(client, job.cleanup, job.resources, redactor, job.boundMs);
}

const raw = process.env.DSSC_DELETE_JOB;
if (raw === 'stdin' && process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const job = JSON.parse(readFileSync(0, 'utf8')) as DeleteJob;
  const outcome = await runDeleteJob(job);
  process.stdout.write(JSON.stringify(outcome));
}

import { cancelJob as cancel } from '@leadgen/commands';
import { errors } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';
import { getAccountJob, type JobAnswer } from './read-job';

/**
 * DELETE /api/v1/leads/jobs/{jobId}: the one cancel command (@leadgen/commands, which the admin CLI runs
 * too), answered with the job body as a GET would now give it.
 */
export async function cancelJob(deps: ApiDependencies, accountId: string, jobId: string): Promise<JobAnswer> {
  const cancellation = await cancel(
    {
      db: deps.db,
      events: deps.producer,
      queue: deps.producer,
      webhooks: deps.webhooks,
      // A cancelled job frees its slot: the account's next held job goes into the queue (decision 020).
      release: { fairness: { openJobsPerAccount: deps.config.queue.openJobsPerAccount }, queue: deps.producer },
    },
    jobId,
    accountId,
  );
  if (cancellation.kind === 'not_found') throw errors.jobNotFound();
  if (cancellation.kind === 'not_cancellable') throw errors.jobNotCancellable(cancellation.job.status);
  return getAccountJob(deps, accountId, jobId);
}

import { cancelJob } from '@leadgen/commands';
import { errors } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';
import { getAccountJob, type JobAnswer } from './read-job';

/**
 * DELETE /api/v1/leads/jobs/{jobId}: the one cancel command (@leadgen/commands, which the admin CLI runs
 * too), answered with the job body as a GET would now give it.
 */
export async function cancelOwnJob(deps: ApiDependencies, accountId: string, jobId: string): Promise<JobAnswer> {
  const cancellation = await cancelJob(deps.lifecycle, jobId, accountId);
  if (cancellation.kind === 'not_found') throw errors.jobNotFound();
  if (cancellation.kind === 'not_cancellable') throw errors.jobNotCancellable(cancellation.job.status);
  return getAccountJob(deps, accountId, jobId);
}

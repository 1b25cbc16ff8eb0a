import { isTerminal, jobSummary, pollUrl, type AcceptedBody, type NonTerminalStatus } from '@leadgen/domain';
import type { JobRecord } from '@leadgen/db';

// The job body's shape is shared with the worker, whose webhook events carry it (decision 016).
export { jobPath, jobSummary, pollUrl } from '@leadgen/domain';

/**
 * The job body of CONTRACT.md section 5, as JSON text; `terminal` and `leads` exactly when the
 * status is terminal. `leadsJson` is the leads array as PostgreSQL wrote it: spliced in as it is,
 * never parsed and serialised again.
 */
export function jobBodyJson(job: JobRecord, leadsJson: string | null, publicBaseUrl: string | null): string {
  const terminal = isTerminal(job.status);
  const head = JSON.stringify(jobSummary(job, publicBaseUrl));
  return terminal ? `${head.slice(0, -1)},"leads":${leadsJson ?? '[]'}}` : head;
}

/** The 202 body of a job still under way. */
export function acceptedBody(job: JobRecord, publicBaseUrl: string | null): AcceptedBody {
  return {
    jobId: job.id,
    resultSetId: job.resultSetId,
    pollUrl: pollUrl(publicBaseUrl, job.id),
    // only a job that is not terminal is answered 202
    status: job.status as NonTerminalStatus,
    progress: { requestedCount: job.requestedCount, deliveredCount: job.deliveredCount },
  };
}

/** How long a poller should wait before asking again, from how far along the job is. */
export function retryAfterSeconds(job: JobRecord): number {
  return job.status === 'queued' ? 2 : 1;
}

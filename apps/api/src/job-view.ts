import { isTerminal, type AcceptedBody, type JobSummary, type NonTerminalStatus, type TerminalStatus } from '@leadgen/domain';
import type { JobRecord } from '@leadgen/db';

export function jobPath(jobId: string): string {
  return `/api/v1/leads/jobs/${jobId}`;
}

export function pollUrl(publicBaseUrl: string | null, jobId: string): string {
  return `${publicBaseUrl ?? ''}${jobPath(jobId)}`;
}

/** The job body of CONTRACT.md section 5 without `leads` (what a job listing's items are). */
export function jobSummary(job: JobRecord, publicBaseUrl: string | null): JobSummary {
  const terminal = isTerminal(job.status);
  return {
    jobId: job.id,
    resultSetId: job.resultSetId,
    pollUrl: pollUrl(publicBaseUrl, job.id),
    source: job.source,
    provider: job.provider,
    status: job.status,
    request: job.request,
    progress: { requestedCount: job.requestedCount, deliveredCount: job.deliveredCount },
    // What the job passed over and did not bill: leads the account already had (only counted for
    // requests with excludeDelivered) and leads on its suppression list.
    skipped: { alreadyDelivered: job.skippedAlreadyDelivered, suppressed: job.skippedSuppressed },
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    creditsReserved: terminal ? 0 : job.creditsReserved,
    creditsCharged: job.creditsCharged,
    ...(terminal
      ? {
          terminal: {
            status: job.status as TerminalStatus,
            requestedCount: job.requestedCount,
            deliveredCount: job.deliveredCount,
            resultSetId: job.resultSetId,
            stopReason: job.stopReason,
          },
        }
      : {}),
  };
}

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

import { isTerminal, type Lead } from '@leadgen/domain';
import type { JobRecord } from '@leadgen/db';

export function jobPath(jobId: string): string {
  return `/api/v1/leads/jobs/${jobId}`;
}

export function pollUrl(publicBaseUrl: string | null, jobId: string): string {
  return `${publicBaseUrl ?? ''}${jobPath(jobId)}`;
}

/** The job body of CONTRACT.md section 5; `terminal` and `leads` exactly when the status is terminal. */
export function jobBody(job: JobRecord, leads: Lead[] | null, publicBaseUrl: string | null) {
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
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    creditsReserved: terminal ? 0 : job.creditsReserved,
    creditsCharged: job.creditsCharged,
    ...(terminal
      ? {
          terminal: {
            status: job.status,
            requestedCount: job.requestedCount,
            deliveredCount: job.deliveredCount,
            resultSetId: job.resultSetId,
            stopReason: job.stopReason,
          },
          leads: leads ?? [],
        }
      : {}),
  };
}

/** The 202 body of a job still under way. */
export function acceptedBody(job: JobRecord, publicBaseUrl: string | null) {
  return {
    jobId: job.id,
    resultSetId: job.resultSetId,
    pollUrl: pollUrl(publicBaseUrl, job.id),
    status: job.status,
    progress: { requestedCount: job.requestedCount, deliveredCount: job.deliveredCount },
  };
}

/** How long a poller should wait before asking again, from how far along the job is. */
export function retryAfterSeconds(job: JobRecord): number {
  return job.status === 'queued' ? 2 : 1;
}

import type { GenerationRequest } from './generation-request';
import type { JobSummary } from './job-body';
import { isTerminal, type JobStatus, type StopReason, type TerminalStatus } from './job-status';
import type { Source } from './sources';

/** What a job body is made of: the job row as the repositories return it (db's JobRecord fits). */
export interface JobFacts {
  id: string;
  resultSetId: string;
  source: Source;
  status: JobStatus;
  request: GenerationRequest;
  requestedCount: number;
  deliveredCount: number;
  stopReason: StopReason | null;
  provider: string | null;
  creditsReserved: number;
  creditsCharged: number | null;
  /** leads passed over because the account already had them (excludeDelivered) */
  skippedAlreadyDelivered: number;
  /** leads passed over because they match the account's suppression list */
  skippedSuppressed: number;
  /** leads the request's filters left out (decision 038); absent reads as 0 */
  skippedFiltered?: number;
  /** the paid upstream calls the job's runs made, by upstream (decision 038); absent reads as none */
  upstreamCalls?: Record<string, number>;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** the batch this job is a child of, or null (decision 021) */
  batchId: string | null;
  /** the monitor whose run this job is; absent or null for a job asked for directly */
  monitorId?: string | null;
}

export function jobPath(jobId: string): string {
  return `/api/v1/leads/jobs/${jobId}`;
}

export function pollUrl(publicBaseUrl: string | null, jobId: string): string {
  return `${publicBaseUrl ?? ''}${jobPath(jobId)}`;
}

/**
 * The job body without `leads` (docs/api.md): what a job listing's items are, and the `data` of a
 * job's webhook event, so the API and the worker that delivers webhooks answer the same shape.
 */
export function jobSummary(job: JobFacts, publicBaseUrl: string | null): JobSummary {
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
    skipped: { alreadyDelivered: job.skippedAlreadyDelivered, suppressed: job.skippedSuppressed, filtered: job.skippedFiltered ?? 0 },
    // What the job cost upstream, so a buyer sees what a filter cost (decision 038).
    upstreamCalls: job.upstreamCalls ?? {},
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    batchId: job.batchId,
    creditsReserved: terminal ? 0 : job.creditsReserved,
    creditsCharged: job.creditsCharged,
    // Only a monitor's run carries it: its webhook event names the monitor (decision 022).
    ...(job.monitorId ? { monitorId: job.monitorId } : {}),
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

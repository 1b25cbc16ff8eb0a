import { isTerminal, jobSummary, type AcceptedBody, type JobSummary, type NonTerminalStatus } from '@leadgen/domain';
import type { JobRecord } from '@leadgen/db';

// How a job is shown to its owner: the job body (docs/api.md, "Jobs"), a job listing's item, the
// 202 of a generate call still under way, and when to poll again.

// The job body's shape is shared with the worker, whose webhook events carry it (decision 016).
export { jobPath, pollUrl } from '@leadgen/domain';

/** The job body without `leads`: what a job listing's items are (and a webhook event's data). */
export function presentJobSummary(job: JobRecord, publicBaseUrl: string | null): JobSummary {
  return jobSummary(job, publicBaseUrl);
}

/**
 * The job body as JSON text; `terminal` and `leads` exactly when the status is terminal. `leadsJson`
 * is the leads array as PostgreSQL wrote it: spliced in as it is, never parsed and serialised again.
 */
export function presentJobJson(job: JobRecord, leadsJson: string | null, publicBaseUrl: string | null): string {
  const terminal = isTerminal(job.status);
  const head = JSON.stringify(presentJobSummary(job, publicBaseUrl));
  if (!terminal) return head;
  // Past LEAD_RETENTION_DAYS the leads are gone (an empty array): the body says when, and why.
  const expired = job.leadsExpiredAt ? `,"leadsExpiredAt":${JSON.stringify(job.leadsExpiredAt.toISOString())}` : '';
  return `${head.slice(0, -1)}${expired},"leads":${leadsJson ?? '[]'}}`;
}

/** The 202 body of a job still under way: the first fields of its job body. */
export function presentAccepted(job: JobRecord, publicBaseUrl: string | null): AcceptedBody {
  const { jobId, resultSetId, pollUrl, status, progress } = presentJobSummary(job, publicBaseUrl);
  // only a job that is not terminal is answered 202
  return { jobId, resultSetId, pollUrl, status: status as NonTerminalStatus, progress };
}

/**
 * `Retry-After` on every answer about a job still under way (the 202, and a poll's 200 before the
 * terminal status): how long a poller should wait, from how far along the job is. None once terminal
 * (`job` is null for a terminal body served from memory).
 */
export function pollHeaders(job: JobRecord | null): Record<string, string> {
  if (!job || isTerminal(job.status)) return {};
  return { 'Retry-After': String(job.status === 'queued' ? 2 : 1) };
}

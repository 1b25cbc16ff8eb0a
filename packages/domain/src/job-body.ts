import type { GenerationRequest } from './generation-request';
import type { JobStatus, NonTerminalStatus, StopReason, TerminalStatus } from './job-status';
import type { Source } from './sources';

// The API's answers as types, for the API that builds them (the OpenAPI document describes the same
// shapes for consumers; @leadgen/client's types are generated from it).

export interface JobProgress {
  requestedCount: number;
  deliveredCount: number;
}

export interface JobTerminal {
  status: TerminalStatus;
  requestedCount: number;
  deliveredCount: number;
  resultSetId: string;
  stopReason: StopReason | null;
}

/** The job body (docs/api.md#the-job-body) without `leads` (a job listing's item). */
export interface JobSummary {
  jobId: string;
  resultSetId: string;
  pollUrl: string;
  source: Source;
  provider: string | null;
  status: JobStatus;
  request: GenerationRequest;
  progress: JobProgress;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** the batch this job is a child of, or null */
  batchId: string | null;
  creditsReserved: number;
  creditsCharged: number | null;
  /** leads passed over and not billed: already delivered to the account (excludeDelivered), on its suppression list, left out by the request's filters */
  skipped: { alreadyDelivered: number; suppressed: number; filtered: number };
  /** the paid upstream calls the job's runs made, by upstream, retries and mailbox verification included (decision 038) */
  upstreamCalls: Record<string, number>;
  /** the monitor whose run this job is (decision 022); absent for a job asked for directly */
  monitorId?: string;
  /** exactly when the status is terminal */
  terminal?: JobTerminal;
}

/** The 202 body of a generate call still under way. */
export interface AcceptedBody {
  jobId: string;
  resultSetId: string;
  pollUrl: string;
  status: NonTerminalStatus;
  progress: JobProgress;
}

import type { GenerationRequest } from './generation-request';
import type { JobStatus, NonTerminalStatus, StopReason, TerminalStatus } from './job-status';
import type { Lead } from './lead';
import type { Source } from './sources';

// The API's answers as types, shared by the API that builds them and the client that reads them
// (the OpenAPI document describes the same shapes for everyone else).

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
  creditsReserved: number;
  creditsCharged: number | null;
  /** leads passed over and not billed: already delivered to the account (excludeDelivered), on its suppression list */
  skipped: { alreadyDelivered: number; suppressed: number };
  /** exactly when the status is terminal */
  terminal?: JobTerminal;
}

/** The job body: `terminal` and `leads` exactly when the status is terminal. */
export interface JobBody extends JobSummary {
  leads?: Lead[];
}

/** The 202 body of a generate call still under way. */
export interface AcceptedBody {
  jobId: string;
  resultSetId: string;
  pollUrl: string;
  status: NonTerminalStatus;
  progress: JobProgress;
}

/** A delivered lead and where it belongs (lead listings and JSON Lines exports). */
export interface LeadItem {
  jobId: string;
  resultSetId: string;
  position: number;
  deliveredAt: string;
  lead: Lead;
}

/** A page of a keyset listing; `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const NON_TERMINAL_STATUSES = ['queued', 'running'] as const;
export const TERMINAL_STATUSES = ['COMPLETE', 'PARTIAL', 'EMPTY', 'FAILED', 'CANCELLED'] as const;

export type NonTerminalStatus = (typeof NON_TERMINAL_STATUSES)[number];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
export type JobStatus = NonTerminalStatus | TerminalStatus;

export type StopReason =
  | 'source_exhausted'
  | 'no_results'
  | 'provider_error'
  | 'provider_unauthorized'
  | 'timeout'
  | 'internal_error'
  | 'cancelled_by_owner'
  | 'batch_budget_exhausted';

export function isTerminal(status: JobStatus): status is TerminalStatus {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** Why a worker stopped producing leads for a job. */
export type JobOutcome =
  | { kind: 'finished' } // the provider had nothing more to give
  | { kind: 'error'; reason: 'provider_error' | 'provider_unauthorized' | 'timeout' | 'internal_error' }
  | { kind: 'cancelled' }
  // a batch's child its batch's maxCredits (or the account) could not cover when it was to start (decision 021)
  | { kind: 'budget_exhausted' };

export interface TerminalDecision {
  status: TerminalStatus;
  stopReason: StopReason | null;
}

/**
 * The meaning of each terminal status in counts (docs/api.md#job-statuses).
 * A PARTIAL result names the stop that cut it short; refused credentials mid-way count as
 * provider_error there, since the table allows only source_exhausted, provider_error and timeout.
 * internal_error mid-way is the one extension (decision 004): hiding it would misreport our fault.
 */
export function decideTerminal(requestedCount: number, deliveredCount: number, outcome: JobOutcome): TerminalDecision {
  if (outcome.kind === 'cancelled') return { status: 'CANCELLED', stopReason: 'cancelled_by_owner' };
  if (outcome.kind === 'budget_exhausted') return { status: 'CANCELLED', stopReason: 'batch_budget_exhausted' };
  if (deliveredCount >= requestedCount) return { status: 'COMPLETE', stopReason: null };
  if (outcome.kind === 'finished') {
    return deliveredCount === 0 ? { status: 'EMPTY', stopReason: 'no_results' } : { status: 'PARTIAL', stopReason: 'source_exhausted' };
  }
  if (deliveredCount === 0) return { status: 'FAILED', stopReason: outcome.reason };
  const partialReason = outcome.reason === 'provider_unauthorized' ? 'provider_error' : outcome.reason;
  return { status: 'PARTIAL', stopReason: partialReason };
}

import { findAccountJob, findJob, type JobRecord } from '@leadgen/db';
import { isTerminal } from '@leadgen/domain';
import type { Untold } from './after-commit';
import type { Lifecycle } from './lifecycle';
import { settleJob, type SettleOptions } from './settle-job';

export type Cancellation =
  | { kind: 'not_found' }
  /** it ended otherwise (COMPLETE, PARTIAL, EMPTY, FAILED): it stays as it is */
  | { kind: 'not_cancellable'; job: JobRecord }
  /** CANCELLED, now or earlier (cancelling twice is the same answer); `untold` as settleJob says */
  | { kind: 'cancelled'; job: JobRecord; untold: Untold[] };

/**
 * Cancels a queued or running job: the owner's DELETE (with its account), a batch's cancel and the operator's
 * `job:cancel` (any account's). The cancel is effective in PostgreSQL when this returns: the job is settled
 * CANCELLED with what it had delivered, and billed for that; the fleet is told afterwards (settle-job.ts).
 */
export async function cancelJob(
  lc: Lifecycle,
  jobId: string,
  accountId: string | null,
  options: SettleOptions = {},
): Promise<Cancellation> {
  const read = () => (accountId === null ? findJob(lc.db, jobId) : findAccountJob(lc.db, accountId, jobId));
  const job = await read();
  if (!job) return { kind: 'not_found' };
  let untold: Untold[] = [];
  if (!isTerminal(job.status)) ({ untold } = await settleJob(lc, jobId, { kind: 'cancelled' }, job, options));
  // Settled here, or terminal meanwhile (the last page landed first): what is true now.
  const current = (await read()) ?? job;
  return current.status === 'CANCELLED' ? { kind: 'cancelled', job: current, untold } : { kind: 'not_cancellable', job: current };
}

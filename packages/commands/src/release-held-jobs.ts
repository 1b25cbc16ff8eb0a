import { markBorrowed, markReleased } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { afterCommit } from './after-commit';
import type { Lifecycle } from './lifecycle';

/**
 * Releases the account's held jobs of the source that fit under its share now and enqueues them: what the
 * worker's periodic sweep runs for each account with held jobs that no settlement released. Returns the
 * released ids (enqueued unless Redis refused: then the lost-job sweep enqueues them).
 */
export async function releaseHeldJobs(lc: Lifecycle, accountId: string, source: Source): Promise<string[]> {
  const released = await markReleased(lc.db, accountId, source, lc.share);
  if (released.length > 0) await afterCommit(lc, { accountId, released: released.map((jobId) => ({ jobId, source })) });
  return released;
}

/**
 * Borrows up to `limit` of the source's oldest held single jobs, whatever their account, for a worker's slots that
 * would otherwise stay idle (decision 020, "Borrowed slots"), and enqueues them. Returns how many it borrowed.
 */
export async function borrowHeldJobs(lc: Lifecycle, source: Source, limit: number): Promise<number> {
  const borrowed = await markBorrowed(lc.db, source, limit);
  const byAccount = new Map<string, string[]>();
  for (const { jobId, accountId } of borrowed) byAccount.set(accountId, [...(byAccount.get(accountId) ?? []), jobId]);
  for (const [accountId, jobIds] of byAccount) await afterCommit(lc, { accountId, released: jobIds.map((jobId) => ({ jobId, source })) });
  return borrowed.length;
}

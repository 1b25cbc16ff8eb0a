import { releaseHeldJobs, type Lifecycle } from '@leadgen/commands';
import { accountsWithHeldJobs } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';

const ACCOUNTS_PER_SWEEP = 500;

/**
 * Held jobs (decision 020) are released by their account's settlements, in the settlement's transaction. What
 * that leaves held while there is room under the share (a place freed by a withdrawn creation, a settlement by the
 * previous deploy, a share raised) is released here, each account's oldest first, and enqueued. A process that
 * dies after a release commits and before its enqueue leaves a released job without an entry: that is the
 * lost-job sweep's, as is every released job after Redis lost its data. Returns the jobs released.
 */
export async function releaseStrandedHeldJobs(lifecycle: Lifecycle, source: Source, stillForMs = 0): Promise<string[]> {
  const released: string[] = [];
  // Only accounts with a job held still for `stillForMs` (the lost-job sweep's wait): a settlement releases the
  // rest in its own transaction, and test files sharing a database keep to their own jobs.
  for (const accountId of await accountsWithHeldJobs(lifecycle.db, source, ACCOUNTS_PER_SWEEP, stillForMs)) {
    released.push(...(await releaseHeldJobs(lifecycle, accountId, source)));
  }
  if (released.length > 0)
    logger.warn('released held jobs no settlement released', { source, count: released.length, jobIds: released.slice(0, 20) });
  return released;
}

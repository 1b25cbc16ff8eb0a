import { isTerminal } from '@leadgen/domain';
import { transaction, type Database } from './client';
import { lockJob } from './job-repository';
import { appendLeads, type PageLead } from './lead-repository';

export type PageCommit =
  | { kind: 'committed'; deliveredCount: number; requestedCount: number }
  /** the job reached a terminal status (cancelled, or settled by another worker): nothing was written */
  | { kind: 'stopped' };

/**
 * Commits one page of a job's leads: inserts the new ones (unique per result set by dedup key, at
 * most what is still missing), advances deliveredCount and the resume cursor, all in one
 * transaction that only commits while the job is not terminal. A worker killed mid-job loses at
 * most the page in flight; a cancelled job's leads and counts stay frozen even if the cancel
 * message never reached its worker.
 */
export async function commitPage(db: Database, jobId: string, page: PageLead[], cursor: string | null): Promise<PageCommit> {
  return transaction(db, async (tx) => {
    const job = await lockJob(tx, jobId);
    if (!job || isTerminal(job.status)) return { kind: 'stopped' };
    const room = job.requestedCount - job.deliveredCount;
    const added = await appendLeads(tx, jobId, job.deliveredCount, room, page);
    const deliveredCount = job.deliveredCount + added;
    await tx.job.update({ where: { id: jobId }, data: { deliveredCount, cursor } });
    return { kind: 'committed', deliveredCount, requestedCount: job.requestedCount };
  });
}

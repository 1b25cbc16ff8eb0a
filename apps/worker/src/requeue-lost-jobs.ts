import { openJobIds, stillOpenJobs, type Database } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { LostJobQueue } from '@leadgen/queue';

const BATCH = 500;

/**
 * PostgreSQL is the source of truth, so a job that is queued or running there must have an entry
 * in its queue. If Redis lost it (a flush, a failover without persistence) or the entry ended
 * while the job did not, the job is enqueued again: its worker then finishes it, or ends it by
 * timeout, and the page-commit guard and the terminal compare-and-set keep it from counting twice.
 *
 * Only jobs that have not moved (created, started, a page committed) for `stillForMs` are looked
 * at (a younger one may be on its way from the API into the queue), and a job whose entry is gone is read again
 * *after* its queue was asked: a worker settles a job in PostgreSQL before its entry completes, so a
 * job that finished meanwhile shows terminal here and is left alone.
 */
export async function requeueLostJobs(
  db: Database,
  queue: LostJobQueue,
  sources: readonly Source[],
  now = Date.now(),
  stillForMs = 60_000,
): Promise<string[]> {
  const still = await stillOpenJobs(db, sources, new Date(now - stillForMs), BATCH);
  if (still.length === 0) return [];
  const lost = [];
  for (const job of still) if (await queue.hasNoLiveEntry(job.source, { jobId: job.id, accountId: job.accountId })) lost.push(job);
  if (lost.length === 0) return [];
  const stillOpen = await openJobIds(
    db,
    lost.map((job) => job.id),
  );
  const requeued: string[] = [];
  for (const job of lost) {
    if (!stillOpen.has(job.id)) continue;
    await queue.requeue(job.source, { jobId: job.id, accountId: job.accountId });
    requeued.push(job.id);
  }
  if (requeued.length > 0)
    logger.warn('requeued jobs whose queue entry was lost', { count: requeued.length, jobIds: requeued.slice(0, 20) });
  return requeued;
}

import type { Database } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { JobProducer } from '@leadgen/queue';

// Jobs younger than this are still on their way from the API's transaction into the queue.
const SETTLE_IN_MS = 60_000;
const BATCH = 500;

/**
 * PostgreSQL is the source of truth, so a job that is queued or running there must have an entry
 * in its queue. If Redis lost it (a flush, a failover without persistence) or the entry ended
 * while the job did not, the job is enqueued again: its worker then finishes it, or ends it by
 * timeout, and the page-commit guard and the terminal compare-and-set keep it from counting twice.
 */
export async function requeueLostJobs(db: Database, producer: JobProducer, sources: readonly Source[], now = Date.now()): Promise<string[]> {
  const stuck = await db.job.findMany({
    where: { status: { in: ['queued', 'running'] }, source: { in: [...sources] }, createdAt: { lt: new Date(now - SETTLE_IN_MS) } },
    select: { id: true, accountId: true, source: true },
    orderBy: { createdAt: 'asc' },
    take: BATCH,
  });
  const requeued: string[] = [];
  for (const job of stuck) {
    if (await producer.requeueIfLost(job.source, { jobId: job.id, accountId: job.accountId })) requeued.push(job.id);
  }
  if (requeued.length > 0) logger.warn('requeued jobs whose queue entry was lost', { count: requeued.length, jobIds: requeued.slice(0, 20) });
  return requeued;
}

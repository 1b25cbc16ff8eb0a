import type { Database } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { JobProducer } from '@leadgen/queue';

// A job that moved (created, started, committed a page) more recently than this is not lost: it is
// on its way from the API's transaction into the queue, or a worker is at it.
export const STILL_FOR_MS = 60_000;
const BATCH = 500;

/**
 * PostgreSQL is the source of truth, so a job that is queued or running there must have an entry
 * in its queue. If Redis lost it (a flush, a failover without persistence) or the entry ended
 * while the job did not, the job is enqueued again: its worker then finishes it, or ends it by
 * timeout, and the page-commit guard and the terminal compare-and-set keep it from counting twice.
 *
 * Only jobs still for STILL_FOR_MS are looked at, and a job whose entry is gone is read again
 * *after* its queue was asked: a worker settles a job in PostgreSQL before its entry completes, so a
 * job that finished meanwhile shows terminal here and is left alone.
 */
export async function requeueLostJobs(db: Database, producer: JobProducer, sources: readonly Source[], now = Date.now()): Promise<string[]> {
  const { rows: still } = await db.sql.query<{ id: string; account_id: string; source: Source }>(
    `SELECT id, account_id, source::text AS source FROM jobs
     WHERE status IN ('queued', 'running') AND updated_at < $1 AND source::text = ANY($2)
     ORDER BY updated_at LIMIT ${BATCH}`,
    [new Date(now - STILL_FOR_MS), sources],
  );
  if (still.length === 0) return [];
  const lost = [];
  for (const job of still) if (await producer.hasNoLiveEntry(job.source, job.id)) lost.push(job);
  if (lost.length === 0) return [];
  const { rows: open } = await db.sql.query<{ id: string }>(`SELECT id FROM jobs WHERE id = ANY($1) AND status IN ('queued', 'running')`, [
    lost.map((job) => job.id),
  ]);
  const stillOpen = new Set(open.map((row) => row.id));
  const requeued: string[] = [];
  for (const job of lost) {
    if (!stillOpen.has(job.id)) continue;
    await producer.requeue(job.source, { jobId: job.id, accountId: job.account_id });
    requeued.push(job.id);
  }
  if (requeued.length > 0) logger.warn('requeued jobs whose queue entry was lost', { count: requeued.length, jobIds: requeued.slice(0, 20) });
  return requeued;
}

import type { Source } from '@leadgen/domain';
import type { Database } from './client';

// Held jobs (docs/ARCHITECTURE.md#glossary, docs/decisions/020-fair-queues.md): a job is in its source's queue
// only once released, and an account keeps at most its share (QUEUE_OPEN_JOBS_PER_ACCOUNT) of open released
// jobs per source; the rest are held here (status queued, released_at NULL, no queue entry).

/**
 * Marks the account's oldest held jobs of the source released, into the room under its share (prisma/functions/
 * release_held_jobs.sql; share 0: no bound, at most 100 a call) and returns their ids, oldest first, for the caller
 * to enqueue now. A process that dies before it enqueues them leaves jobs released without an entry: the lost-job
 * sweep enqueues them.
 */
export async function markReleased(db: Database, accountId: string, source: Source, share: number): Promise<string[]> {
  const { rows } = await db.sql.query<{ released: string[] }>('SELECT release_held_jobs($1, $2, $3) AS released', [
    accountId,
    source,
    share,
  ]);
  return rows[0]?.released ?? [];
}

/** Accounts with held jobs of the source, those held longest first: the periodic sweep's candidates. */
export async function accountsWithHeldJobs(db: Database, source: Source, limit: number, stillForMs = 0): Promise<string[]> {
  const { rows } = await db.sql.query<{ account_id: string }>(
    `SELECT account_id FROM jobs WHERE status = 'queued' AND released_at IS NULL AND source::text = $1
       AND updated_at <= now() - make_interval(secs => $3::double precision / 1000)
     GROUP BY account_id ORDER BY min(created_at) LIMIT $2`,
    [source, limit, stillForMs],
  );
  return rows.map((row) => row.account_id);
}

/** How many of the account's jobs of the source are held (tests, the operator). */
export async function heldJobCount(db: Database, accountId: string, source: Source): Promise<number> {
  const { rows } = await db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND source::text = $2 AND status = 'queued' AND released_at IS NULL`,
    [accountId, source],
  );
  return rows[0]?.n ?? 0;
}

/** Held jobs by source, every account's (the operator's gauge, `leadgen_queue_jobs{state="held"}`); a partial index's rows. */
export async function heldJobsBySource(db: Database): Promise<Partial<Record<Source, number>>> {
  const { rows } = await db.sql.query<{ source: Source; n: number }>(
    `SELECT source::text AS source, count(*)::int AS n FROM jobs WHERE status = 'queued' AND released_at IS NULL GROUP BY source`,
  );
  return Object.fromEntries(rows.map((row) => [row.source, row.n]));
}

/** A job a worker's idle slot borrowed (prisma/functions/borrow_held_jobs.sql), with its account for the enqueue. */
export interface BorrowedJob {
  jobId: string;
  accountId: string;
}

/**
 * Marks up to `limit` of the source's oldest held single jobs released (borrowed), whatever their account, for
 * slots that would otherwise stay idle (decision 020, "Borrowed slots"); the caller enqueues them now.
 */
export async function markBorrowed(db: Database, source: Source, limit: number): Promise<BorrowedJob[]> {
  const { rows } = await db.sql.query<{ o_job_id: string; o_account_id: string }>('SELECT * FROM borrow_held_jobs($1, $2)', [
    source,
    limit,
  ]);
  return rows.map((row) => ({ jobId: row.o_job_id, accountId: row.o_account_id }));
}

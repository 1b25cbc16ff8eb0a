import type { Lead } from '@leadgen/domain';
import type { Database } from './client';

export interface PageLead {
  /** place id, profile URL or store domain: one lead per key per result set */
  dedupKey: string;
  lead: Lead;
}

export type PageCommit =
  | { kind: 'committed'; deliveredCount: number; requestedCount: number }
  /** the job reached a terminal status (cancelled, or settled by another worker): nothing was written */
  | { kind: 'stopped' };

// One statement: lock the job's row only while it is not terminal, insert the page's leads that the
// result set does not have yet (at most what is still missing, numbered on from the delivered
// count), and advance delivered_count and the resume cursor together. `open` 0 means the job is
// terminal and nothing was written.
// The one race: a second worker holding the same job (after a stall) commits while this statement
// waits for the row lock. The lock then returns the new row, but the statement's snapshot (which
// decides what is already stored) predates it; `current` is empty in that case, nothing is written,
// and the caller runs the statement again with a fresh snapshot.
const COMMIT_PAGE = `
WITH job AS (
  SELECT id, requested_count, delivered_count FROM jobs
  WHERE id = $1 AND status IN ('queued', 'running')
  FOR UPDATE
), current AS (
  SELECT job.* FROM job JOIN jobs AS snapshot ON snapshot.id = job.id AND snapshot.delivered_count = job.delivered_count
), page AS (
  SELECT DISTINCT ON (item->>'k') item->>'k' AS dedup_key, item->'d' AS data, ord
  FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS p(item, ord)
  WHERE NOT EXISTS (SELECT 1 FROM leads l WHERE l.job_id = $1 AND l.dedup_key = item->>'k')
  ORDER BY item->>'k', ord
), fresh AS (
  SELECT dedup_key, data, row_number() OVER (ORDER BY ord) - 1 AS n FROM page
), inserted AS (
  INSERT INTO leads (job_id, position, dedup_key, data)
  SELECT current.id, current.delivered_count + fresh.n, fresh.dedup_key, fresh.data
  FROM current, fresh WHERE fresh.n < current.requested_count - current.delivered_count
  RETURNING 1
), updated AS (
  UPDATE jobs SET delivered_count = current.delivered_count + (SELECT count(*) FROM inserted), cursor = $3, updated_at = now()
  FROM current WHERE jobs.id = current.id
  RETURNING jobs.delivered_count, jobs.requested_count
)
SELECT (SELECT count(*) FROM job)::int AS open, updated.* FROM (SELECT 1) AS one LEFT JOIN updated ON true`;

const STALE_RETRIES = 5;

/**
 * Commits one page of a job's leads. A worker killed mid-job loses at most the page in flight; a
 * resumed job re-reading committed pages adds nothing twice; a cancelled job's leads and counts
 * stay frozen even if the cancel message never reached its worker.
 */
export async function commitPage(db: Database, jobId: string, page: PageLead[], cursor: string | null): Promise<PageCommit> {
  const items = JSON.stringify(page.map((p) => ({ k: p.dedupKey, d: p.lead })));
  for (let attempt = 0; attempt < STALE_RETRIES; attempt += 1) {
    const { rows } = await db.sql.query<{ open: number; delivered_count: number | null; requested_count: number | null }>(COMMIT_PAGE, [
      jobId,
      items,
      cursor,
    ]);
    const row = rows[0]!;
    if (row.open === 0) return { kind: 'stopped' };
    if (row.delivered_count !== null) return { kind: 'committed', deliveredCount: row.delivered_count, requestedCount: row.requested_count! };
  }
  throw new Error(`page of job ${jobId} not committed: another worker kept committing the same job`);
}

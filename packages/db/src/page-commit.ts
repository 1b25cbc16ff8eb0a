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
// result set does not have yet (at most what is still missing, numbered from the delivered count),
// and advance delivered_count and the resume cursor together. No row back means the job is terminal
// and nothing was written. ON CONFLICT covers the one race the snapshot cannot see: a lead that a
// second worker holding the same job (after a stall) committed while this statement waited for the lock.
const COMMIT_PAGE = `
WITH job AS (
  SELECT id, requested_count, delivered_count FROM jobs
  WHERE id = $1 AND status IN ('queued', 'running')
  FOR UPDATE
), page AS (
  SELECT DISTINCT ON (item->>'k') item->>'k' AS dedup_key, item->'d' AS data, ord
  FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS p(item, ord)
  WHERE NOT EXISTS (SELECT 1 FROM leads l WHERE l.job_id = $1 AND l.dedup_key = item->>'k')
  ORDER BY item->>'k', ord
), fresh AS (
  SELECT dedup_key, data, row_number() OVER (ORDER BY ord) - 1 AS n FROM page
), inserted AS (
  INSERT INTO leads (job_id, position, dedup_key, data)
  SELECT job.id, job.delivered_count + fresh.n, fresh.dedup_key, fresh.data
  FROM job, fresh WHERE fresh.n < job.requested_count - job.delivered_count
  ON CONFLICT DO NOTHING
  RETURNING 1
)
UPDATE jobs SET delivered_count = job.delivered_count + (SELECT count(*) FROM inserted), cursor = $3, updated_at = now()
FROM job WHERE jobs.id = job.id
RETURNING jobs.delivered_count, jobs.requested_count`;

/**
 * Commits one page of a job's leads. A worker killed mid-job loses at most the page in flight; a
 * resumed job re-reading committed pages adds nothing twice; a cancelled job's leads and counts
 * stay frozen even if the cancel message never reached its worker.
 */
export async function commitPage(db: Database, jobId: string, page: PageLead[], cursor: string | null): Promise<PageCommit> {
  const items = JSON.stringify(page.map((p) => ({ k: p.dedupKey, d: p.lead })));
  const { rows } = await db.sql.query<{ delivered_count: number; requested_count: number }>(COMMIT_PAGE, [jobId, items, cursor]);
  const row = rows[0];
  if (!row) return { kind: 'stopped' };
  return { kind: 'committed', deliveredCount: row.delivered_count, requestedCount: row.requested_count };
}

import type { Database } from './client';

/** What one retention run deleted. */
export interface LeadRetentionReport {
  /** jobs whose leads were deleted (now answering 410 leads_expired) */
  jobs: number;
  leads: number;
}

// One statement per batch of jobs: the finished jobs past the cut-off whose leads are still kept, oldest
// first (index jobs(leads_expired_at, finished_at)), their leads deleted and the jobs marked, together, so a
// job is never seen marked with leads left nor emptied unmarked. Only terminal jobs have finished_at, and a
// page commit writes nothing into a terminal job, so nothing is added after. SKIP LOCKED: a job row another
// transaction holds (an erasure's barrier takes only open jobs; a late page commit of a finished one) is
// left to the next run rather than waited for. A batch is at most $2 jobs and about $3 leads (one job with more goes
// whole), whatever the jobs' sizes: a short statement, short locks (decision 043).
const EXPIRE_BATCH = `
WITH locked AS (
  SELECT id, finished_at, delivered_count - leads_erased AS leads FROM jobs
  WHERE leads_expired_at IS NULL AND finished_at < now() - make_interval(days => $1)
  ORDER BY finished_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
), due AS (
  SELECT id FROM (
    SELECT id, row_number() OVER w AS nth, sum(leads) OVER w AS upto FROM locked WINDOW w AS (ORDER BY finished_at, id)
  ) x WHERE upto <= $3 OR nth = 1
), gone AS (
  DELETE FROM leads l USING due WHERE l.job_id = due.id RETURNING l.job_id
), marked AS (
  UPDATE jobs j SET leads_expired_at = now() FROM due WHERE j.id = due.id RETURNING j.id
)
SELECT (SELECT count(*) FROM gone)::int AS leads, COALESCE((SELECT array_agg(id) FROM marked), '{}') AS job_ids`;

/**
 * Deletes the leads of every job that finished more than `days` ago (LEAD_RETENTION_DAYS), in batches of at most
 * `batch` jobs and about `leadsPerBatch` leads. The jobs keep their counts, charges and ledger rows; account_deliveries keeps the dedup keys
 * (no personal data), so excludeDelivered still never bills a lead twice. Safe to run on several workers at once.
 */
export async function expireLeads(
  db: Database,
  days: number,
  options: { batch?: number; leadsPerBatch?: number; onExpired?: (jobIds: string[]) => Promise<void> } = {},
): Promise<LeadRetentionReport> {
  const batch = options.batch ?? 100;
  const leadsPerBatch = options.leadsPerBatch ?? 5_000;
  const report: LeadRetentionReport = { jobs: 0, leads: 0 };
  for (;;) {
    const { rows } = await db.sql.query<{ leads: number; job_ids: string[] }>(EXPIRE_BATCH, [days, batch, leadsPerBatch]);
    const { leads, job_ids: jobIds } = rows[0]!;
    report.jobs += jobIds.length;
    report.leads += leads;
    // API processes keep finished job bodies in memory: each batch's jobs are named as they go.
    if (jobIds.length > 0) await options.onExpired?.(jobIds);
    if (jobIds.length === 0) return report;
  }
}

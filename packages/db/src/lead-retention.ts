import type { Database } from './client';
import { PARTITION_WEEKS_AHEAD } from './partitions';

/** What one retention run deleted. */
export interface LeadRetentionReport {
  /** jobs whose leads were deleted (now answering 410 leads_expired) */
  jobs: number;
  leads: number;
  /** the partitions of leads dropped whole (decision 046): their jobs and leads are counted above too */
  partitions: string[];
  /** a partition due could not be dropped this run: a long transaction held leads past the lock timeout */
  lockTimedOut: boolean;
}

/** How many weeks ahead the worker keeps partitions of leads (the same for every table partitioned by week). */
export const LEAD_PARTITION_WEEKS_AHEAD = PARTITION_WEEKS_AHEAD;

/**
 * Creates the weekly partitions of leads missing from this week to `weeksAhead` after it (decision 046), so the
 * leads of every job created meanwhile have one; returns those it created. Idempotent; safe on several workers. The
 * worker's sweep makes every partitioned table's at once (ensureWeeklyPartitions, partitions.ts).
 */
export async function ensureLeadPartitions(db: Database, weeksAhead = LEAD_PARTITION_WEEKS_AHEAD): Promise<string[]> {
  const { rows } = await db.sql.query<{ name: string }>("SELECT name FROM ensure_weekly_partitions('leads', $1) AS name", [weeksAhead]);
  return rows.map((row) => row.name);
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
  WHERE leads_expired_at IS NULL AND finished_at < COALESCE($4::timestamptz, now()) - make_interval(days => $1)
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
 * Deletes the leads of every job that finished more than `days` ago (LEAD_RETENTION_DAYS): first each partition of
 * leads all of whose jobs are past it, dropped whole (drop_expired_lead_partition.sql: the disk is freed at once),
 * then the rest row by row in batches of at most `batch` jobs and about `leadsPerBatch` leads (the partition at the
 * window's edge, and jobs in a partition that still holds one within the window). The jobs keep their counts,
 * charges and ledger rows; account_deliveries keeps the dedup keys (no personal data), so excludeDelivered still never
 * bills a lead twice. Safe to run on several workers at once. `now` is for tests: the time the window ends at.
 */
export async function expireLeads(
  db: Database,
  days: number,
  options: { batch?: number; leadsPerBatch?: number; now?: Date; onExpired?: (jobIds: string[]) => Promise<void> } = {},
): Promise<LeadRetentionReport> {
  const batch = options.batch ?? 100;
  const leadsPerBatch = options.leadsPerBatch ?? 5_000;
  const now = options.now ?? null;
  const report: LeadRetentionReport = { jobs: 0, leads: 0, partitions: [], lockTimedOut: false };
  for (;;) {
    let dropped: { o_partition: string; o_job_ids: string[]; o_leads: string } | undefined;
    try {
      ({
        rows: [dropped],
      } = await db.sql.query<{ o_partition: string; o_job_ids: string[]; o_leads: string }>(
        'SELECT * FROM drop_expired_lead_partition($1, COALESCE($2::timestamptz, now()))',
        [days, now],
      ));
    } catch (error) {
      // lock_not_available: a long transaction held leads past the lock timeout; the next run tries again, and the
      // batches below still run
      if ((error as { code?: string }).code !== '55P03') throw error;
      report.lockTimedOut = true;
    }
    if (!dropped) break;
    report.partitions.push(dropped.o_partition);
    report.jobs += dropped.o_job_ids.length;
    report.leads += Number(dropped.o_leads);
    if (dropped.o_job_ids.length > 0) await options.onExpired?.(dropped.o_job_ids);
  }
  for (;;) {
    const { rows } = await db.sql.query<{ leads: number; job_ids: string[] }>(EXPIRE_BATCH, [days, batch, leadsPerBatch, now]);
    const { leads, job_ids: jobIds } = rows[0]!;
    report.jobs += jobIds.length;
    report.leads += leads;
    // API processes keep finished job bodies in memory: each batch's jobs are named as they go.
    if (jobIds.length > 0) await options.onExpired?.(jobIds);
    if (jobIds.length === 0) return report;
  }
}

import { ensureWeeklyPartitions, expireLeads, type Database } from '@leadgen/db';
import { logger } from '@leadgen/logger';
import { claimPeriodicTask, type JobEventPublisher, type LeadQueues } from '@leadgen/queue';
import { startPeriodicSweep, type PeriodicSweep } from './periodic-sweep';

/** How often the fleet deletes the leads past LEAD_RETENTION_DAYS: retention is counted in days, an hour late is nothing. */
export const LEAD_RETENTION_SWEEP_MS = 3_600_000;

/**
 * Once per period fleet-wide: creates the weekly partitions for the weeks ahead of every table partitioned by week,
 * leads and audit_events (ensureWeeklyPartitions, decisions 046 and 053, whatever the retentions: a row needs a
 * partition to go to; the API's hourly purge drops the audit trail's weeks past AUDIT_RETENTION_DAYS), then deletes
 * the leads of jobs that finished more than `days` ago (expireLeads: whole partitions dropped, the rest in batches),
 * and names each emptied job on the leads-erased channel so API processes drop the finished bodies they keep. A job's
 * leads then answer 410 leads_expired. No lead is deleted when `days` is null (keep leads as long as jobs).
 */
export function startLeadRetentionSweep(
  db: Database,
  queues: LeadQueues,
  events: JobEventPublisher,
  retention: { days: number | null; periodMs?: number },
): PeriodicSweep {
  const { days, periodMs = LEAD_RETENTION_SWEEP_MS } = retention;
  return startPeriodicSweep('lead retention sweep', periodMs, async () => {
    // Two claims: the partitions ahead (of every partitioned table, under the claim's old name) are every fleet's,
    // whatever its retention; the deletions only a retaining one's.
    if (await claimPeriodicTask(queues.connection, queues.keys, 'lead-partitions', periodMs)) {
      const created = await ensureWeeklyPartitions(db);
      if (created.length > 0) logger.info('weekly partitions created', { partitions: created });
    }
    if (days === null || !(await claimPeriodicTask(queues.connection, queues.keys, 'lead-retention', periodMs))) return;
    const report = await expireLeads(db, days, {
      onExpired: async (jobIds) => {
        // A lost message leaves an API process serving a kept body until it restarts: logged, not fatal to the sweep.
        const told = await Promise.allSettled(jobIds.map((jobId) => events.publishLeadsErased(jobId)));
        if (told.some((t) => t.status === 'rejected')) logger.warn('lead retention: API processes not told of some emptied jobs');
      },
    });
    if (report.lockTimedOut)
      logger.warn('lead retention: a partition due could not be dropped this run (lock timeout); the next run tries again');
    if (report.jobs > 0) logger.info('lead retention sweep deleted expired leads', { days, ...report });
  });
}

import { purgeWebhookDeliveries, type Database } from '@leadgen/db';
import { logger } from '@leadgen/logger';
import { claimPeriodicTask, type LeadQueues } from '@leadgen/queue';
import { startPeriodicSweep, type PeriodicSweep } from './periodic-sweep';

/** How often the fleet deletes the deliveries past WEBHOOK_DELIVERY_RETENTION_DAYS: counted in days, an hour late is nothing. */
export const WEBHOOK_RETENTION_SWEEP_MS = 3_600_000;

/**
 * Once per period fleet-wide (the claim `webhook-retention`): deletes the finished webhook deliveries created more
 * than `days` ago, with their attempts: the weeks wholly past it and holding no pending delivery dropped whole, the
 * rest in bounded batches (purgeWebhookDeliveries; never a pending one). Listing or retrying such a delivery then
 * answers 404. Nothing runs when `days` is null (kept as long as job, endpoint and
 * account).
 */
export function startWebhookRetentionSweep(
  db: Database,
  queues: LeadQueues,
  retention: { days: number | null; periodMs?: number },
): PeriodicSweep | null {
  const { days, periodMs = WEBHOOK_RETENTION_SWEEP_MS } = retention;
  if (days === null) return null;
  return startPeriodicSweep('webhook delivery retention sweep', periodMs, async () => {
    if (!(await claimPeriodicTask(queues.connection, queues.keys, 'webhook-retention', periodMs))) return;
    const report = await purgeWebhookDeliveries(db, days);
    if (report.lockTimedOut)
      logger.warn('webhook delivery retention: a week due could not be dropped this run (lock timeout); the next run tries again');
    if (report.deliveries > 0 || report.partitions.length > 0)
      logger.info('webhook delivery retention sweep deleted deliveries', { days, ...report });
  });
}

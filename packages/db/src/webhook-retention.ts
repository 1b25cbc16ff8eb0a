import type { Database } from './client';
import { dropWeeksPast } from './partitions';

// WEBHOOK_DELIVERY_RETENTION_DAYS (issue 39, decision 053): a delivery is kept that many days after it was created,
// with its attempts (webhook_attempts' foreign key cascades), then deleted by the workers' hourly sweep; its listing
// and retry then answer 404. A pending delivery is never deleted: its retry round lasts about 28 hours, and a manual
// retry starts another, so it is kept until it ends (the sweep after that deletes it).

/** What one sweep of the deliveries past retention removed. */
export interface WebhookDeliveryPurgeReport {
  /** deliveries deleted row by row, with their attempts */
  deliveries: number;
  /** the weekly partitions of webhook_deliveries dropped whole with their attempts' (decision 053) */
  partitions: string[];
  /** a week due could not be dropped this run: a long transaction held the tables past the lock timeout */
  lockTimedOut: boolean;
}

/**
 * Purges the finished deliveries (succeeded or failed) created more than `days` ago, with their attempts: first each
 * weekly partition all of whose deliveries are past it and none pending, dropped whole with its attempts' partition
 * (drop_partition_past.sql: the disk is freed at once), then the rest row by row (the week at the window's edge, and
 * a week held back by a pending delivery) in batches of `batch`, each its own statement (a bounded transaction: the service's writes to other deliveries go on,
 * and a manual retry of one waits for one batch at most). A delivery made pending again by a retry committed before
 * its batch is kept: the DELETE reads its status again. `now` is for tests: the time the window ends at.
 */
export async function purgeWebhookDeliveries(
  db: Database,
  days: number,
  options: { batch?: number; now?: Date } = {},
): Promise<WebhookDeliveryPurgeReport> {
  const batch = options.batch ?? 1_000;
  const now = options.now ?? null;
  const report: WebhookDeliveryPurgeReport = { deliveries: 0, ...(await dropWeeksPast(db, 'webhook_deliveries', days, now)) };
  for (;;) {
    const { rowCount } = await db.sql.query(
      `DELETE FROM webhook_deliveries d
       WHERE d.id IN (
           SELECT id FROM webhook_deliveries
           WHERE created_at < COALESCE($3::timestamptz, now()) - make_interval(days => $1) AND status <> 'pending'
           LIMIT $2)
         -- again on the row it deletes: a retry that made it pending meanwhile keeps it
         AND d.status <> 'pending' AND d.created_at < COALESCE($3::timestamptz, now()) - make_interval(days => $1)`,
      [days, batch, now],
    );
    const deleted = rowCount ?? 0;
    report.deliveries += deleted;
    if (deleted < batch) return report;
  }
}

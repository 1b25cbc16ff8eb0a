import { purgeAuditEvents, purgeExpiredIdempotencyKeys, type Database } from '@leadgen/db';
import { logger } from '@leadgen/logger';

const EVERY_MS = 3600_000;

/**
 * Once an hour: deletes expired idempotency keys (ignored on read anyway; this only keeps the table
 * small) and the audit events older than AUDIT_RETENTION_DAYS (the weeks wholly past it dropped, the rest in
 * batches, decision 053; several API processes doing it at once only share the work). The weeks ahead are the
 * worker's sweep's (ensureWeeklyPartitions).
 */
export function startIdempotencyKeyPurge(db: Database, options: { auditRetentionDays: number }): { stop(): void } {
  const timer = setInterval(() => {
    purgeExpiredIdempotencyKeys(db).catch((error: Error) => logger.warn('idempotency purge failed', { error: error.message }));
    purgeAuditEvents(db, options.auditRetentionDays)
      .then((report) => {
        if (report.lockTimedOut)
          logger.warn('audit purge: a week due could not be dropped this run (lock timeout); the next run tries again');
        if (report.partitions.length > 0) logger.info('audit purge dropped weeks past the retention', { partitions: report.partitions });
      })
      .catch((error: Error) => logger.warn('audit purge failed', { error: error.message }));
  }, EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

import { purgeAuditEvents, purgeExpiredIdempotencyKeys, type Database } from '@leadgen/db';
import { logger } from '@leadgen/logger';

const EVERY_MS = 3600_000;

/**
 * Once an hour: deletes expired idempotency keys (ignored on read anyway; this only keeps the table
 * small) and the audit events older than AUDIT_RETENTION_DAYS (in batches; several API processes doing
 * it at once only share the work).
 */
export function startIdempotencyKeyPurge(db: Database, options: { auditRetentionDays: number }): { stop(): void } {
  const timer = setInterval(() => {
    purgeExpiredIdempotencyKeys(db).catch((error: Error) => logger.warn('idempotency purge failed', { error: error.message }));
    purgeAuditEvents(db, options.auditRetentionDays).catch((error: Error) => logger.warn('audit purge failed', { error: error.message }));
  }, EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

import { purgeExpiredIdempotencyKeys, type Database } from '@leadgen/db';
import { logger } from '@leadgen/logger';

const EVERY_MS = 3600_000;

/** Deletes expired idempotency keys once an hour. Expired keys are ignored on read anyway; this only keeps the table small. */
export function startIdempotencyKeyPurge(db: Database): { stop(): void } {
  const timer = setInterval(() => {
    purgeExpiredIdempotencyKeys(db).catch((error: Error) => logger.warn('idempotency purge failed', { error: error.message }));
  }, EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

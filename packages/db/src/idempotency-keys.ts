import type { Database } from './client';

/** Housekeeping: drops expired keys (they are ignored and taken over on use anyway); returns how many. */
export async function purgeExpiredIdempotencyKeys(db: Database, now = new Date()): Promise<number> {
  const deleted = await db.idempotencyKey.deleteMany({ where: { expiresAt: { lte: now } } });
  return deleted.count;
}

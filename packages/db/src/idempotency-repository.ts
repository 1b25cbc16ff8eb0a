import type { Database, Tx } from './client';

export interface IdempotencyRecord {
  key: string;
  fingerprint: string;
  jobId: string;
  expiresAt: Date;
}

/** The live record of a key for an account; an expired one is deleted and reads as absent. */
export async function findIdempotencyKey(tx: Tx, accountId: string, key: string): Promise<IdempotencyRecord | null> {
  const row = await tx.idempotencyKey.findUnique({ where: { accountId_key: { accountId, key } } });
  if (!row) return null;
  if (row.expiresAt.getTime() <= Date.now()) {
    await tx.idempotencyKey.delete({ where: { accountId_key: { accountId, key } } });
    return null;
  }
  return { key: row.key, fingerprint: row.fingerprint, jobId: row.jobId, expiresAt: row.expiresAt };
}

export async function bindIdempotencyKey(tx: Tx, accountId: string, record: IdempotencyRecord): Promise<void> {
  await tx.idempotencyKey.create({ data: { accountId, ...record } });
}

/** Housekeeping: drops expired keys; returns how many. */
export async function purgeExpiredIdempotencyKeys(tx: Database | Tx, now = new Date()): Promise<number> {
  const deleted = await tx.idempotencyKey.deleteMany({ where: { expiresAt: { lte: now } } });
  return deleted.count;
}

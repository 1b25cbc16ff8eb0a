import { createHash } from 'node:crypto';
import { newId } from '@leadgen/domain';
import type { Database, Tx } from './client';

export interface AccountRecord {
  id: string;
  name: string;
  createdAt: Date;
}

export interface IssuedKey {
  keyId: string;
  /** the secret: shown once, never stored */
  apiKey: string;
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export async function createAccount(db: Database | Tx, name: string): Promise<AccountRecord> {
  const row = await db.account.create({ data: { id: newId.account(), name } });
  return { id: row.id, name: row.name, createdAt: row.createdAt };
}

export async function findAccount(db: Database | Tx, id: string): Promise<AccountRecord | null> {
  const row = await db.account.findUnique({ where: { id } });
  return row ? { id: row.id, name: row.name, createdAt: row.createdAt } : null;
}

export async function countAccounts(db: Database): Promise<number> {
  return db.account.count();
}

export async function issueApiKey(db: Database | Tx, accountId: string): Promise<IssuedKey> {
  const apiKey = newId.apiKeySecret();
  const keyId = newId.apiKeyId();
  await db.apiKey.create({ data: { id: keyId, accountId, keyHash: hashApiKey(apiKey), prefix: apiKey.slice(0, 12) } });
  return { keyId, apiKey };
}

/** The account a live key belongs to; null for unknown or revoked keys. */
export async function accountForApiKey(db: Database, apiKey: string): Promise<AccountRecord | null> {
  const row = await db.apiKey.findUnique({ where: { keyHash: hashApiKey(apiKey) }, include: { account: true } });
  if (!row || row.revokedAt) return null;
  return { id: row.account.id, name: row.account.name, createdAt: row.account.createdAt };
}

/** Revokes a key; false when no such key exists. Revoking twice is fine. */
export async function revokeApiKey(db: Database, apiKey: string): Promise<boolean> {
  const updated = await db.apiKey.updateMany({
    where: { keyHash: hashApiKey(apiKey), revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (updated.count > 0) return true;
  return (await db.apiKey.count({ where: { keyHash: hashApiKey(apiKey) } })) > 0;
}

/**
 * Serialises the writes of one account: reservations and idempotency checks run under this lock,
 * so two requests can neither overdraw the account nor both claim one Idempotency-Key.
 * NO KEY UPDATE, not UPDATE: the foreign-key checks of ledger and job inserts (a settling worker's,
 * say) take KEY SHARE on the account row, which UPDATE would block and NO KEY UPDATE does not.
 */
export async function lockAccount(tx: Tx, accountId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
  return rows.length === 1;
}

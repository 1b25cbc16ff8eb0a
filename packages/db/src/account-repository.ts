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

/** The account a live key belongs to, in one statement; null for unknown or revoked keys. */
export async function accountForApiKey(db: Database, apiKey: string): Promise<AccountRecord | null> {
  const { rows } = await db.sql.query<{ id: string; name: string; created_at: Date }>(
    `SELECT a.id, a.name, a.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id
     WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [hashApiKey(apiKey)],
  );
  const row = rows[0];
  return row ? { id: row.id, name: row.name, createdAt: row.created_at } : null;
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

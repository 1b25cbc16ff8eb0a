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
  /** when the key stops working, if it does */
  expiresAt?: string;
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

export async function issueApiKey(db: Database | Tx, accountId: string, options: { expiresAt?: Date } = {}): Promise<IssuedKey> {
  const apiKey = newId.apiKeySecret();
  const keyId = newId.apiKeyId();
  await db.apiKey.create({ data: { id: keyId, accountId, keyHash: hashApiKey(apiKey), prefix: apiKey.slice(0, 12), expiresAt: options.expiresAt ?? null } });
  return { keyId, apiKey, ...(options.expiresAt ? { expiresAt: options.expiresAt.toISOString() } : {}) };
}

// One statement per request: the live key's account, and the key's last use recorded only when the
// recorded one is an hour old, so authentication stays a read nearly always.
const AUTHENTICATE = `
WITH key AS (
  SELECT id, account_id, last_used_at FROM api_keys
  WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
), used AS (
  UPDATE api_keys SET last_used_at = now() FROM key
  WHERE api_keys.id = key.id AND (key.last_used_at IS NULL OR key.last_used_at < now() - interval '1 hour')
)
SELECT a.id, a.name, a.created_at FROM key JOIN accounts a ON a.id = key.account_id`;

/** The account a live key belongs to; null for unknown, revoked or expired keys. */
export async function accountForApiKey(db: Database, apiKey: string): Promise<AccountRecord | null> {
  const { rows } = await db.sql.query<{ id: string; name: string; created_at: Date }>(AUTHENTICATE, [hashApiKey(apiKey)]);
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

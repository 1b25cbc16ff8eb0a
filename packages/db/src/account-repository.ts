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

export interface KeyAuthentication {
  account: AccountRecord;
  /** when the key stops working, if it does */
  keyExpiresAt: Date | null;
}

/** The account a live key belongs to, and when the key expires; null for unknown, revoked or expired keys. */
export async function authenticateApiKey(db: Database, keyHash: string): Promise<KeyAuthentication | null> {
  // One statement per request (the `authenticate` function of the migrations): the account, and the
  // key's last use recorded only when the recorded one is an hour old, so it stays a read nearly always.
  const { rows } = await db.sql.query<{ o_id: string; o_name: string; o_created_at: Date; o_key_expires_at: Date | null }>(
    'SELECT * FROM authenticate($1)',
    [keyHash],
  );
  const row = rows[0];
  return row ? { account: { id: row.o_id, name: row.o_name, createdAt: row.o_created_at }, keyExpiresAt: row.o_key_expires_at } : null;
}

/** The account a live key belongs to; null for unknown, revoked or expired keys. */
export async function accountForApiKey(db: Database, apiKey: string): Promise<AccountRecord | null> {
  return (await authenticateApiKey(db, hashApiKey(apiKey)))?.account ?? null;
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

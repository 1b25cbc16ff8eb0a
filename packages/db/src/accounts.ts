import { createHash } from 'node:crypto';
import { API_KEY_SCOPES, newId, type ApiKeyMode, type ApiKeyScope } from '@leadgen/domain';
import { sqlOf, type Database, type Queryable } from './client';

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

export async function createAccount(db: Database | Queryable, name: string): Promise<AccountRecord> {
  const { rows } = await sqlOf(db).query<{ id: string; name: string; created_at: Date }>(
    'INSERT INTO accounts (id, name) VALUES ($1, $2) RETURNING id, name, created_at',
    [newId.account(), name],
  );
  const row = rows[0]!;
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

export async function findAccount(db: Database, id: string): Promise<AccountRecord | null> {
  const row = await db.account.findUnique({ where: { id } });
  return row ? { id: row.id, name: row.name, createdAt: row.createdAt } : null;
}

export async function countAccounts(db: Database): Promise<number> {
  return db.account.count();
}

export interface NewKeyOptions {
  expiresAt?: Date;
  /** the consumer's label */
  name?: string | null;
  /** every scope unless said (the operator's keys) */
  scopes?: readonly ApiKeyScope[];
  /** live unless said; a test key's secret starts lg_test_ */
  mode?: ApiKeyMode;
  /** the key that asked for this one over the API */
  createdByKeyId?: string | null;
}

/** A new key's row and its secret (the secret is returned once and only its hash is stored). */
export function newKeyRow(accountId: string, options: NewKeyOptions = {}) {
  const mode = options.mode ?? 'live';
  const apiKey = newId.apiKeySecret(mode);
  const row = {
    id: newId.apiKeyId(),
    accountId,
    keyHash: hashApiKey(apiKey),
    // lg_live_ or lg_test_ and four characters of the secret: enough to tell keys apart, nothing to guess with.
    prefix: apiKey.slice(0, 12),
    expiresAt: options.expiresAt ?? null,
    name: options.name ?? null,
    mode,
    createdByKeyId: options.createdByKeyId ?? null,
    scopes: [...(options.scopes ?? API_KEY_SCOPES)],
  };
  return { row, apiKey };
}

/** Stores a key's row (newKeyRow): the operator's issue and the keys API both write it here. */
export async function insertKeyRow(db: Database | Queryable, row: ReturnType<typeof newKeyRow>['row']): Promise<void> {
  await sqlOf(db).query(
    `INSERT INTO api_keys (id, account_id, key_hash, prefix, expires_at, name, mode, created_by_key_id, scopes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text[])`,
    [row.id, row.accountId, row.keyHash, row.prefix, row.expiresAt, row.name, row.mode, row.createdByKeyId, row.scopes],
  );
}

export async function issueApiKey(db: Database | Queryable, accountId: string, options: NewKeyOptions = {}): Promise<IssuedKey> {
  const { row, apiKey } = newKeyRow(accountId, options);
  await insertKeyRow(db, row);
  return { keyId: row.id, apiKey, ...(options.expiresAt ? { expiresAt: options.expiresAt.toISOString() } : {}) };
}

export interface KeyAuthentication {
  account: AccountRecord;
  /** when the key stops working, if it does */
  keyExpiresAt: Date | null;
  /** the account's key epoch as of the same read: a revocation since has raised it */
  keyEpoch: number;
  /** the key's id (key_...): who did it, in the audit trail */
  keyId: string;
  /** what the key may do (decision 036) */
  keyScopes: ApiKeyScope[];
  /** live, or test: sandbox only, no credits spent */
  keyMode: ApiKeyMode;
}

/** The account a live key belongs to, when the key expires and the account's key epoch; null for unknown, revoked or expired keys. */
export async function authenticateApiKey(db: Database, keyHash: string): Promise<KeyAuthentication | null> {
  // One statement per request (prisma/functions/authenticate_api_key.sql): the account, the key's scopes and its key epoch from
  // one snapshot, and the key's last use recorded only when the recorded one is an hour old, so it stays a read nearly always.
  const { rows } = await db.sql.query<{
    o_id: string;
    o_name: string;
    o_created_at: Date;
    o_key_expires_at: Date | null;
    o_key_epoch: string;
    o_key_id: string;
    o_key_scopes: ApiKeyScope[];
    o_key_mode: ApiKeyMode;
  }>('SELECT * FROM authenticate_api_key($1)', [keyHash]);
  const row = rows[0];
  return row
    ? {
        account: { id: row.o_id, name: row.o_name, createdAt: row.o_created_at },
        keyExpiresAt: row.o_key_expires_at,
        keyEpoch: Number(row.o_key_epoch),
        keyId: row.o_key_id,
        keyScopes: row.o_key_scopes,
        keyMode: row.o_key_mode,
      }
    : null;
}

export interface KeyRevocation {
  keyId: string;
  accountId: string;
  /** the account's key epoch after this revocation: what the API processes must see in Redis (announceKeyEpoch) */
  keyEpoch: number;
}

/**
 * Revokes a key by its id or by the key itself, and raises its account's key epoch in the same
 * statement; null when no such key. Revoking twice is fine (the epoch rises again, which costs the
 * API processes one more key read).
 */
export async function revokeKey(db: Database, by: { keyId: string } | { apiKey: string }): Promise<KeyRevocation | null> {
  const [column, value] = 'keyId' in by ? ['id', by.keyId] : ['key_hash', hashApiKey(by.apiKey)];
  const rows = await db.$queryRawUnsafe<Array<{ key_id: string; account_id: string; key_epoch: bigint }>>(
    `WITH k AS (UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE ${column} = $1 RETURNING id, account_id)
     UPDATE accounts a SET key_epoch = a.key_epoch + 1 FROM k WHERE a.id = k.account_id RETURNING k.id AS key_id, a.id AS account_id, a.key_epoch`,
    value,
  );
  const row = rows[0];
  return row ? { keyId: row.key_id, accountId: row.account_id, keyEpoch: Number(row.key_epoch) } : null;
}

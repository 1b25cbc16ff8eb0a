import { API_KEY_SCOPES, type ApiKeyMode, type ApiKeyScope } from '@leadgen/domain';
import { inTransaction, type Database, type Queryable } from './client';
import { newKeyRow, type NewKeyOptions } from './accounts';

/** A key as its account sees it: never its secret nor its hash. */
export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  name: string | null;
  prefix: string;
  scopes: ApiKeyScope[];
  mode: ApiKeyMode;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdByKeyId: string | null;
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  scopes: ApiKeyScope[];
  mode: ApiKeyMode;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_by_key_id: string | null;
}

const COLUMNS = 'id, account_id, name, prefix, scopes, mode, created_at, expires_at, last_used_at, revoked_at, created_by_key_id';

const fromRow = (r: KeyRow): ApiKeyRecord => ({
  keyId: r.id,
  accountId: r.account_id,
  name: r.name,
  prefix: r.prefix,
  scopes: r.scopes,
  mode: r.mode,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
  createdByKeyId: r.created_by_key_id,
});

export type KeyCreation = { outcome: 'created'; key: ApiKeyRecord; apiKey: string } | { outcome: 'limit' };

/**
 * Issues a key for an account over the API, unless the account holds `limit` live keys already. The count and
 * the insert run under a transaction-scoped advisory lock of the account's keys, so two creations at once
 * cannot both take the last place; nothing else takes that lock (job creation and authentication do not wait).
 */
export async function createAccountKey(db: Database, accountId: string, options: NewKeyOptions, limit: number): Promise<KeyCreation> {
  return inTransaction(db, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('api_keys:' || $1, 0))`, [accountId]);
    const { rows } = await client.query<{ live: string }>(
      `SELECT count(*) AS live FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [accountId],
    );
    if (Number(rows[0]!.live) >= limit) return { outcome: 'limit' as const };
    const { row, apiKey } = newKeyRow(accountId, options);
    await client.query(
      `INSERT INTO api_keys (id, account_id, key_hash, prefix, expires_at, name, mode, created_by_key_id, scopes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text[])`,
      [
        row.id,
        accountId,
        row.keyHash,
        row.prefix,
        row.expiresAt,
        row.name,
        row.mode,
        row.createdByKeyId,
        row.scopes ?? [...API_KEY_SCOPES],
      ],
    );
    const key = await readKey(client, accountId, row.id);
    return { outcome: 'created' as const, key: key!, apiKey };
  });
}

async function readKey(client: Queryable, accountId: string, keyId: string): Promise<ApiKeyRecord | null> {
  const { rows } = await client.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 AND id = $2`, [accountId, keyId]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** One of the account's keys (revoked ones too), or null: another account's key answers as one that does not exist. */
export function findAccountKey(db: Database, accountId: string, keyId: string): Promise<ApiKeyRecord | null> {
  return readKey(db.sql, accountId, keyId);
}

export interface KeyKeyset {
  createdAt: Date;
  id: string;
}

/** Up to `limit` of the account's keys after `after`, newest first (the index (account_id, created_at, id) walked backwards). */
export async function listAccountKeys(
  db: Database,
  accountId: string,
  filter: { mode: ApiKeyMode | null; includeRevoked: boolean },
  after: KeyKeyset | null,
  limit: number,
): Promise<ApiKeyRecord[]> {
  const { rows } = await db.sql.query<KeyRow>(
    `SELECT ${COLUMNS} FROM api_keys
     WHERE account_id = $1
       AND ($2::text IS NULL OR mode = $2)
       AND ($3::boolean OR revoked_at IS NULL)
       AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5::text))
     ORDER BY created_at DESC, id DESC
     LIMIT $6`,
    [accountId, filter.mode, filter.includeRevoked, after?.createdAt ?? null, after?.id ?? null, limit],
  );
  return rows.map(fromRow);
}

export interface KeyChange {
  key: ApiKeyRecord;
  /** the account's key epoch after the change, when it was raised (the expiry changed): announce it (announceKeyEpoch) */
  keyEpoch: number | null;
}

/**
 * Renames a key and/or moves its expiry (null: never), in one statement; null when the account has no such key.
 * A change of expiry raises the account's key epoch in the same statement, as a revocation does, so an API
 * process that holds the key with its old expiry reads it again at its next request.
 */
export async function changeAccountKey(
  db: Database,
  accountId: string,
  keyId: string,
  change: { name?: string | null; expiresAt?: Date | null },
): Promise<KeyChange | null> {
  const expiryChanges = change.expiresAt !== undefined;
  const { rows } = await db.sql.query<KeyRow & { key_epoch: string | null }>(
    `WITH k AS (
       UPDATE api_keys SET
         name = CASE WHEN $3::boolean THEN $4::text ELSE name END,
         expires_at = CASE WHEN $5::boolean THEN $6::timestamptz ELSE expires_at END
       WHERE account_id = $1 AND id = $2
       RETURNING ${COLUMNS}
     ), e AS (
       UPDATE accounts a SET key_epoch = a.key_epoch + 1 FROM k WHERE $5::boolean AND a.id = k.account_id RETURNING a.key_epoch
     )
     SELECT k.*, (SELECT key_epoch FROM e) AS key_epoch FROM k`,
    [accountId, keyId, change.name !== undefined, change.name ?? null, expiryChanges, change.expiresAt ?? null],
  );
  const row = rows[0];
  return row ? { key: fromRow(row), keyEpoch: row.key_epoch === null ? null : Number(row.key_epoch) } : null;
}

export interface AccountKeyRevocation {
  key: ApiKeyRecord;
  /** the account's key epoch after the revocation: announce it (announceKeyEpoch) */
  keyEpoch: number;
}

/**
 * Revokes one of the account's keys and raises the account's key epoch in the same statement (as revokeKey
 * does for the operator); a key revoked already keeps its first revokedAt. Null when the account has no such key.
 */
export async function revokeAccountKey(db: Database, accountId: string, keyId: string): Promise<AccountKeyRevocation | null> {
  const { rows } = await db.sql.query<KeyRow & { key_epoch: string }>(
    `WITH k AS (
       UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}
     ), e AS (
       UPDATE accounts a SET key_epoch = a.key_epoch + 1 FROM k WHERE a.id = k.account_id RETURNING a.key_epoch
     )
     SELECT k.*, e.key_epoch FROM k, e`,
    [accountId, keyId],
  );
  const row = rows[0];
  return row ? { key: fromRow(row), keyEpoch: Number(row.key_epoch) } : null;
}

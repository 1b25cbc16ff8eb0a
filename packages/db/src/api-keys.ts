import { TEST_ACCOUNT_CREDITS, newId, type ApiKeyMode, type ApiKeyScope } from '@leadgen/domain';
import { inTransaction, type Database, type Queryable } from './client';
import { insertKeyRow, newKeyRow, type NewKeyOptions } from './accounts';

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
 * Issues a key over the API, unless the account holds `limit` live keys already (its test account's counted with
 * its own). A test key goes to the account's test account (acc_test_…, decision 036), made with its test credits on
 * the first test key. The count and the inserts run under a transaction-scoped advisory lock of the live account's
 * keys, so two creations at once cannot both take the last place nor both make a test account; nothing else takes
 * that lock (job creation and authentication never wait on it).
 */
export async function createAccountKey(db: Database, accountId: string, options: NewKeyOptions, limit: number): Promise<KeyCreation> {
  return inTransaction(db, async (client) => {
    const live = await liveAccountOf(client, accountId);
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('api_keys:' || $1, 0))`, [live]);
    const { rows } = await client.query<{ live: string }>(
      `SELECT count(*) AS live FROM api_keys
       WHERE account_id IN (SELECT id FROM accounts WHERE id = $1 OR live_account_id = $1)
         AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [live],
    );
    if (Number(rows[0]!.live) >= limit) return { outcome: 'limit' as const };
    const owner = options.mode === 'test' ? await testAccountOf(client, live) : live;
    const { row, apiKey } = newKeyRow(owner, options);
    await insertKeyRow(client, row);
    const key = await readKey(client, owner, row.id);
    return { outcome: 'created' as const, key: key!, apiKey };
  });
}

/** The live account an account belongs to: itself, or for a test account the one it is the twin of. */
async function liveAccountOf(client: Queryable, accountId: string): Promise<string> {
  const { rows } = await client.query<{ live: string }>(`SELECT COALESCE(live_account_id, id) AS live FROM accounts WHERE id = $1`, [
    accountId,
  ]);
  return rows[0]?.live ?? accountId;
}

/** The live account's test account, made (with its test credits' grant) when it has none yet; under the caller's lock. */
async function testAccountOf(client: Queryable, liveAccountId: string): Promise<string> {
  const found = await client.query<{ id: string }>(`SELECT id FROM accounts WHERE live_account_id = $1`, [liveAccountId]);
  if (found.rows[0]) return found.rows[0].id;
  const id = newId.testAccount();
  await client.query(`INSERT INTO accounts (id, name, live_account_id) SELECT $1, name, id FROM accounts WHERE id = $2`, [
    id,
    liveAccountId,
  ]);
  await client.query(
    `WITH grant_row AS (INSERT INTO credit_ledger (account_id, kind, amount) VALUES ($1, 'grant', $2) RETURNING account_id)
     UPDATE accounts SET balance = balance + $2 FROM grant_row WHERE accounts.id = grant_row.account_id`,
    [id, TEST_ACCOUNT_CREDITS],
  );
  return id;
}

/**
 * The keys an account's key may see and manage: a live account's own and its test account's; a test account's own
 * only. `$1` is the caller's account.
 */
const VISIBLE = `account_id IN (SELECT id FROM accounts WHERE id = $1 OR live_account_id = $1)`;

async function readKey(client: Queryable, accountId: string, keyId: string): Promise<ApiKeyRecord | null> {
  const { rows } = await client.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE ${VISIBLE} AND id = $2`, [accountId, keyId]);
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
     WHERE ${VISIBLE}
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
  /** the key's account's key epoch after the change, when it was raised (the expiry changed): announce it (announceKeyEpoch) */
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
       WHERE ${VISIBLE} AND id = $2
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
  /** the key's account's (key.accountId: a test key's is the test account) key epoch after the revocation: announce it */
  keyEpoch: number;
}

/**
 * Revokes one of the account's keys and raises the account's key epoch in the same statement (as revokeKey
 * does for the operator); a key revoked already keeps its first revokedAt. Null when the account has no such key.
 */
export async function revokeAccountKey(db: Database, accountId: string, keyId: string): Promise<AccountKeyRevocation | null> {
  const { rows } = await db.sql.query<KeyRow & { key_epoch: string }>(
    `WITH k AS (
       UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE ${VISIBLE} AND id = $2 RETURNING ${COLUMNS}
     ), e AS (
       UPDATE accounts a SET key_epoch = a.key_epoch + 1 FROM k WHERE a.id = k.account_id RETURNING a.key_epoch
     )
     SELECT k.*, e.key_epoch FROM k, e`,
    [accountId, keyId],
  );
  const row = rows[0];
  return row ? { key: fromRow(row), keyEpoch: Number(row.key_epoch) } : null;
}

/** The live account's test account (acc_test_…), or null when it has no test key yet and so none. */
export async function findTestAccountId(db: Database, liveAccountId: string): Promise<string | null> {
  const { rows } = await db.sql.query<{ id: string }>(`SELECT id FROM accounts WHERE live_account_id = $1`, [liveAccountId]);
  return rows[0]?.id ?? null;
}

import type { Database } from './client';
import { ACCOUNT_COUNTERS } from './credit-ledger';

/** Operator views (the admin CLI): cold paths, plain rows. */

export interface AccountListing {
  accountId: string;
  name: string;
  /** `test` for a test account (acc_test_…, decision 036): its credits are test credits */
  mode: 'live' | 'test';
  /** a test account's live account (the one whose test keys it holds); null for a live account */
  liveAccountId: string | null;
  createdAt: string;
  balance: number;
  reserved: number;
  available: number;
  activeKeys: number;
}

/** Every account, oldest first, each live account followed by its test account. */
export async function listAccounts(db: Database): Promise<AccountListing[]> {
  const { rows } = await db.sql.query<{
    id: string;
    name: string;
    live_account_id: string | null;
    created_at: Date;
    balance: string;
    reserved: string;
    active_keys: string;
  }>(`
    SELECT a.id, a.name, a.live_account_id, a.created_at, c.balance, c.reserved,
      (SELECT count(*) FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) AS active_keys
    FROM accounts a JOIN (${ACCOUNT_COUNTERS} GROUP BY a.id) c ON c.id = a.id
    JOIN accounts live ON live.id = COALESCE(a.live_account_id, a.id)
    ORDER BY live.created_at, live.id, a.live_account_id IS NOT NULL`);
  return rows.map((r) => ({
    accountId: r.id,
    name: r.name,
    mode: r.live_account_id === null ? ('live' as const) : ('test' as const),
    liveAccountId: r.live_account_id,
    createdAt: r.created_at.toISOString(),
    balance: Number(r.balance),
    reserved: Number(r.reserved),
    available: Number(r.balance) - Number(r.reserved),
    activeKeys: Number(r.active_keys),
  }));
}

export interface KeyListing {
  keyId: string;
  prefix: string;
  createdAt: string;
  /** to the hour: written at most once per key per hour */
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export async function listApiKeys(db: Database, accountId: string): Promise<KeyListing[]> {
  const { rows } = await db.sql.query<{
    id: string;
    prefix: string;
    created_at: Date;
    last_used_at: Date | null;
    expires_at: Date | null;
    revoked_at: Date | null;
  }>('SELECT id, prefix, created_at, last_used_at, expires_at, revoked_at FROM api_keys WHERE account_id = $1 ORDER BY created_at, id', [
    accountId,
  ]);
  return rows.map((r) => ({
    keyId: r.id,
    prefix: r.prefix,
    createdAt: r.created_at.toISOString(),
    lastUsedAt: r.last_used_at?.toISOString() ?? null,
    expiresAt: r.expires_at?.toISOString() ?? null,
    revokedAt: r.revoked_at?.toISOString() ?? null,
  }));
}

export interface LedgerRow {
  at: string;
  kind: 'grant' | 'reserve' | 'release' | 'charge';
  amount: number;
  jobId: string | null;
  /** grants minus charges so far */
  balance: number;
  /** reservations minus releases so far */
  reserved: number;
}

/** An account's ledger, oldest first, with the running balance and reservation after each row. */
export async function accountLedger(db: Database, accountId: string): Promise<LedgerRow[]> {
  const { rows } = await db.sql.query<{
    created_at: Date;
    kind: LedgerRow['kind'];
    amount: number;
    job_id: string | null;
    balance: string;
    reserved: string;
  }>(
    `
    SELECT created_at, kind::text AS kind, amount, job_id,
      SUM(CASE kind WHEN 'grant' THEN amount WHEN 'charge' THEN -amount ELSE 0 END) OVER w AS balance,
      SUM(CASE kind WHEN 'reserve' THEN amount WHEN 'release' THEN -amount ELSE 0 END) OVER w AS reserved
    FROM credit_ledger WHERE account_id = $1
    WINDOW w AS (ORDER BY id ROWS UNBOUNDED PRECEDING)
    ORDER BY id`,
    [accountId],
  );
  return rows.map((r) => ({
    at: r.created_at.toISOString(),
    kind: r.kind,
    amount: r.amount,
    jobId: r.job_id,
    balance: Number(r.balance),
    reserved: Number(r.reserved),
  }));
}

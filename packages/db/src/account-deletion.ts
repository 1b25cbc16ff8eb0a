import type { Database } from './client';

/** What the audit trail keeps of a deleted account: counts and credit totals, nothing personal. */
export interface DeletedAccountFigures {
  jobs: number;
  leads: number;
  apiKeys: number;
  ledgerRows: number;
  /** credits granted over the account's life, charged, and its balance when it went */
  credits: { granted: number; charged: number; balance: number };
}

export type AccountDeletion = { outcome: 'not_found' } | { outcome: 'open_jobs' } | { outcome: 'deleted'; figures: DeletedAccountFigures };

/**
 * Revokes every key of the account and raises its key epoch, in one statement, so no request starts
 * anything for it from now on (the caller announces the epoch, as key:revoke does). Null: no such account.
 */
export async function revokeAccountKeys(db: Database, accountId: string): Promise<{ keyEpoch: number } | null> {
  const { rows } = await db.sql.query<{ key_epoch: string }>(
    `WITH k AS (UPDATE api_keys SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL)
     UPDATE accounts SET key_epoch = key_epoch + 1 WHERE id = $1 RETURNING key_epoch`,
    [accountId],
  );
  return rows[0] ? { keyEpoch: Number(rows[0].key_epoch) } : null;
}

/** The account's queued and running jobs. */
export async function openJobsOf(db: Database, accountId: string): Promise<string[]> {
  const { rows } = await db.sql.query<{ id: string }>(
    `SELECT id FROM jobs WHERE account_id = $1 AND status IN ('queued', 'running') ORDER BY id`,
    [accountId],
  );
  return rows.map((r) => r.id);
}

/**
 * One statement (prisma/functions/delete_account.sql): the account and everything it owns, its ledger
 * included, or nothing while it still has an open job.
 */
export async function deleteAccount(db: Database, accountId: string): Promise<AccountDeletion> {
  const { rows } = await db.sql.query<{
    o_outcome: 'not_found' | 'open_jobs' | 'deleted';
    o_jobs: number;
    o_leads: string;
    o_api_keys: number;
    o_ledger_rows: number;
    o_granted: string;
    o_charged: string;
    o_balance: string;
  }>('SELECT * FROM delete_account($1)', [accountId]);
  const row = rows[0]!;
  if (row.o_outcome !== 'deleted') return { outcome: row.o_outcome };
  return {
    outcome: 'deleted',
    figures: {
      jobs: row.o_jobs,
      leads: Number(row.o_leads),
      apiKeys: row.o_api_keys,
      ledgerRows: row.o_ledger_rows,
      credits: { granted: Number(row.o_granted), charged: Number(row.o_charged), balance: Number(row.o_balance) },
    },
  };
}

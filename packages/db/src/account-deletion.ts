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

/** Whether a deletion of the account stopped once its row was gone (account_deletions holds its figures). */
export async function accountDeletionUnderWay(db: Database, accountId: string): Promise<boolean> {
  const { rowCount } = await db.sql.query('SELECT 1 FROM account_deletions WHERE account_id = $1', [accountId]);
  return (rowCount ?? 0) > 0;
}

/** How many rows one purge statement deletes at most (about: one job with more leads goes whole), and one ledger batch exactly. */
export const ACCOUNT_PURGE_BATCH = 5_000;

/**
 * The account and everything it owns, its ledger included, or nothing while it still has an open job. What grows
 * with the account's use (finished jobs and their leads, deliveries, suppressions...) goes first in bounded batches
 * (prisma/functions/purge_account_rows.sql), each a short transaction of its own, so no lock is held for seconds
 * whatever the account's size; then prisma/functions/delete_account.sql, a step a statement: the audit figures and the
 * account row with what is left but its ledger, then its ledger, `batch` rows a statement. An open job found at the
 * start purges nothing; one that appears meanwhile makes delete_account refuse, with the account's finished jobs gone
 * already (its keys are revoked: the next deletion carries on). A deletion that stopped once the account row was gone
 * (account_deletions holds its figures) carries on with its ledger and answers those figures.
 */
export async function deleteAccount(db: Database, accountId: string, options: { batch?: number } = {}): Promise<AccountDeletion> {
  const batch = options.batch ?? ACCOUNT_PURGE_BATCH;
  const { rows: found } = await db.sql.query<{ account: boolean; open: boolean; under_way: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1) AS account,
            EXISTS (SELECT 1 FROM jobs WHERE account_id = $1 AND status IN ('queued', 'running')) AS open,
            EXISTS (SELECT 1 FROM account_deletions WHERE account_id = $1) AS under_way`,
    [accountId],
  );
  const { account, open, under_way: underWay } = found[0]!;
  if (!account && !underWay) return { outcome: 'not_found' };
  if (account && open) return { outcome: 'open_jobs' };
  const purged = { jobs: 0, leads: 0 };
  while (account) {
    const { rows } = await db.sql.query<{ o_jobs: number; o_leads: string; o_rows: string }>('SELECT * FROM purge_account_rows($1, $2)', [
      accountId,
      batch,
    ]);
    purged.jobs += rows[0]!.o_jobs;
    purged.leads += Number(rows[0]!.o_leads);
    if (Number(rows[0]!.o_rows) === 0) break;
  }
  for (;;) {
    const { rows } = await db.sql.query<{
      o_outcome: 'not_found' | 'open_jobs' | 'ledger' | 'deleted';
      o_jobs: number;
      o_leads: string;
      o_api_keys: number;
      o_ledger_rows: number;
      o_granted: string;
      o_charged: string;
      o_balance: string;
    }>('SELECT * FROM delete_account($1, $2)', [accountId, batch]);
    const row = rows[0]!;
    if (row.o_outcome === 'ledger') continue;
    if (row.o_outcome !== 'deleted') return { outcome: row.o_outcome };
    return {
      outcome: 'deleted',
      figures: {
        jobs: purged.jobs + row.o_jobs,
        leads: purged.leads + Number(row.o_leads),
        apiKeys: row.o_api_keys,
        ledgerRows: row.o_ledger_rows,
        credits: { granted: Number(row.o_granted), charged: Number(row.o_charged), balance: Number(row.o_balance) },
      },
    };
  }
}

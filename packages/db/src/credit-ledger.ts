import { sqlOf, type Database, type Queryable } from './client';

export interface CreditSummary {
  /** granted minus charged */
  balance: number;
  /** held by jobs that have not settled yet */
  reserved: number;
  /** what a new job may reserve */
  available: number;
}

const summary = (balance: unknown, reserved: unknown): CreditSummary => {
  const b = Number(balance ?? 0);
  const r = Number(reserved ?? 0);
  return { balance: b, reserved: r, available: b - r };
};

/**
 * The account's counters, whatever the length of its history: its row's base part plus its credit stripes'
 * (a handful of rows, one index range; prisma/functions/reserve_credits.sql says why they are split).
 */
export const ACCOUNT_COUNTERS = `
  SELECT a.id, a.balance + COALESCE(sum(s.balance), 0) AS balance, a.reserved + COALESCE(sum(s.reserved), 0) AS reserved
  FROM accounts a LEFT JOIN credit_stripes s ON s.account_id = a.id`;

/** The account's counters now (prisma/functions/account_credits.sql: one snapshot of its base part and its stripes). */
export async function creditSummary(db: Database, accountId: string): Promise<CreditSummary> {
  const { rows } = await db.sql.query<{ balance: string; reserved: string }>('SELECT balance, reserved FROM account_credits($1)', [
    accountId,
  ]);
  return summary(rows[0]?.balance, rows[0]?.reserved);
}

/** The same figures summed from the append-only ledger: the proof the counters are checked against. */
export async function ledgerCreditSummary(db: Database, accountId: string): Promise<CreditSummary> {
  const [row] = await db.$queryRaw<Array<{ balance: bigint | null; reserved: bigint | null }>>`
    SELECT
      COALESCE(SUM(amount) FILTER (WHERE kind = 'grant'), 0) - COALESCE(SUM(amount) FILTER (WHERE kind = 'charge'), 0) AS balance,
      COALESCE(SUM(amount) FILTER (WHERE kind = 'reserve'), 0) - COALESCE(SUM(amount) FILTER (WHERE kind = 'release'), 0) AS reserved
    FROM credit_ledger WHERE account_id = ${accountId}`;
  return summary(row?.balance, row?.reserved);
}

export interface CreditDiscrepancy {
  accountId: string;
  counters: { balance: number; reserved: number };
  ledger: { balance: number; reserved: number };
}

/** Every account whose counters disagree with its ledger (none, unless something bypassed the code). */
export async function findCreditDiscrepancies(db: Database): Promise<CreditDiscrepancy[]> {
  const { rows } = await db.sql.query<{ id: string; balance: string; reserved: string; ledger_balance: string; ledger_reserved: string }>(`
    SELECT a.id, a.balance, a.reserved, COALESCE(l.balance, 0) AS ledger_balance, COALESCE(l.reserved, 0) AS ledger_reserved
    FROM (${ACCOUNT_COUNTERS} GROUP BY a.id) a
    LEFT JOIN (
      SELECT account_id,
        COALESCE(SUM(amount) FILTER (WHERE kind = 'grant'), 0) - COALESCE(SUM(amount) FILTER (WHERE kind = 'charge'), 0) AS balance,
        COALESCE(SUM(amount) FILTER (WHERE kind = 'reserve'), 0) - COALESCE(SUM(amount) FILTER (WHERE kind = 'release'), 0) AS reserved
      FROM credit_ledger GROUP BY account_id
    ) l ON l.account_id = a.id
    WHERE a.balance <> COALESCE(l.balance, 0) OR a.reserved <> COALESCE(l.reserved, 0)
    ORDER BY a.id`);
  return rows.map((r) => ({
    accountId: r.id,
    counters: { balance: Number(r.balance), reserved: Number(r.reserved) },
    ledger: { balance: Number(r.ledger_balance), reserved: Number(r.ledger_reserved) },
  }));
}

/** A grant row and the balance it adds (to the account row's base part), in one statement (so they can never disagree). */
export async function grantCredits(db: Database | Queryable, accountId: string, amount: number): Promise<void> {
  await sqlOf(db).query(
    `WITH grant_row AS (
       INSERT INTO credit_ledger (account_id, kind, amount) VALUES ($1, 'grant', $2) RETURNING account_id
     )
     UPDATE accounts SET balance = balance + $2 FROM grant_row WHERE accounts.id = grant_row.account_id`,
    [accountId, amount],
  );
}

/**
 * Test accounts' credits back to `allowance` (decision 036): each test account (of `accountId`, a live or a test
 * account, or every one) whose balance (its base part and its stripes') is below it, and with `grantedBefore`
 * only those whose last grant row is older than that, gets a grant row of the difference and that much on its base
 * part, in one statement under the account row's lock, as grantCredits does. A charge landing on a stripe meanwhile
 * leaves the balance that much under the allowance, never the ledger out of step. The last grant is found walking
 * the account's ledger index from its newest row back to its last grant.
 */
export async function topUpTestCredits(
  db: Database | Queryable,
  options: { allowance: number; accountId?: string | null; grantedBefore?: Date | null },
): Promise<Array<{ accountId: string; amount: number }>> {
  const { rows } = await sqlOf(db).query<{ id: string; amount: number }>(
    `WITH due AS (
       SELECT a.id, ($1::bigint - a.balance - COALESCE((SELECT sum(s.balance) FROM credit_stripes s WHERE s.account_id = a.id), 0))::int AS amount
       FROM accounts a
       WHERE a.live_account_id IS NOT NULL AND ($2::text IS NULL OR a.id = $2 OR a.live_account_id = $2)
         AND ($3::timestamptz IS NULL OR COALESCE((SELECT l.created_at FROM credit_ledger l WHERE l.account_id = a.id AND l.kind = 'grant'
                                                   ORDER BY l.id DESC LIMIT 1), '-infinity') < $3)
       FOR UPDATE OF a
     ), grant_rows AS (
       INSERT INTO credit_ledger (account_id, kind, amount) SELECT id, 'grant', amount FROM due WHERE amount > 0
       RETURNING account_id, amount
     )
     UPDATE accounts a SET balance = a.balance + g.amount FROM grant_rows g WHERE a.id = g.account_id
     RETURNING a.id, g.amount`,
    [options.allowance, options.accountId ?? null, options.grantedBefore ?? null],
  );
  return rows.map((r) => ({ accountId: r.id, amount: Number(r.amount) })).sort((x, y) => x.accountId.localeCompare(y.accountId));
}

import type { Database, Tx } from './client';

export interface CreditSummary {
  /** granted minus charged */
  balance: number;
  /** held by jobs that have not settled yet */
  reserved: number;
  /** what a new job may reserve */
  available: number;
}

/** The balance is derived from the append-only ledger, never stored beside it. */
export async function creditSummary(db: Database | Tx, accountId: string): Promise<CreditSummary> {
  const [row] = await db.$queryRaw<Array<{ balance: bigint | null; reserved: bigint | null }>>`
    SELECT
      COALESCE(SUM(amount) FILTER (WHERE kind = 'grant'), 0) - COALESCE(SUM(amount) FILTER (WHERE kind = 'charge'), 0) AS balance,
      COALESCE(SUM(amount) FILTER (WHERE kind = 'reserve'), 0) - COALESCE(SUM(amount) FILTER (WHERE kind = 'release'), 0) AS reserved
    FROM credit_ledger WHERE account_id = ${accountId}`;
  const balance = Number(row?.balance ?? 0);
  const reserved = Number(row?.reserved ?? 0);
  return { balance, reserved, available: balance - reserved };
}

export async function grantCredits(db: Database | Tx, accountId: string, amount: number): Promise<void> {
  await db.ledgerEntry.create({ data: { accountId, kind: 'grant', amount } });
}

export async function reserveCredits(tx: Tx, accountId: string, jobId: string, amount: number): Promise<void> {
  if (amount > 0) await tx.ledgerEntry.create({ data: { accountId, jobId, kind: 'reserve', amount } });
}

/**
 * Settles a job's reservation: releases all of it and records the charge. The unique
 * (job_id, kind) index makes a second charge or release for one job impossible, whatever code runs.
 */
export async function settleCredits(tx: Tx, accountId: string, jobId: string, reserved: number, charge: number): Promise<void> {
  if (reserved > 0) await tx.ledgerEntry.create({ data: { accountId, jobId, kind: 'release', amount: reserved } });
  if (charge > 0) await tx.ledgerEntry.create({ data: { accountId, jobId, kind: 'charge', amount: charge } });
}

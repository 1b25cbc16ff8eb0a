import type { LedgerEntryRecord } from '@leadgen/db';

/** A ledger row as GET /api/v1/account/ledger shows it (and its CSV, column for column). */
export function presentLedgerEntry(entry: LedgerEntryRecord) {
  return {
    id: entry.id,
    createdAt: entry.createdAt.toISOString(),
    kind: entry.kind,
    amount: entry.amount,
    jobId: entry.jobId,
    batchId: entry.batchId,
    source: entry.source,
  };
}

/** The CSV's columns, in this order; new ones are added after the last. */
export const LEDGER_CSV_COLUMNS = ['id', 'createdAt', 'kind', 'amount', 'jobId', 'batchId', 'source'] as const;

import type { Source } from '@leadgen/domain';
import type { ReadSide } from './read-replica';

// The consumer's view of its credit ledger (GET /api/v1/account/ledger and /usage; decision 036): read only, from
// the append-only credit_ledger, walked on (account_id, id).

export interface LedgerEntryRecord {
  /** the row's id: ledger rows are numbered in the order they were written */
  id: number;
  kind: 'grant' | 'reserve' | 'release' | 'charge';
  amount: number;
  jobId: string | null;
  batchId: string | null;
  source: Source | null;
  createdAt: Date;
}

export interface LedgerRange {
  /** inclusive */
  createdAfter: Date | null;
  /** exclusive */
  createdBefore: Date | null;
}

const RANGE = `l.account_id = $1
  AND ($2::timestamptz IS NULL OR l.created_at >= $2)
  AND ($3::timestamptz IS NULL OR l.created_at < $3)
  AND ($4::bigint IS NULL OR l.id > $4)`;

/** Up to `limit` of the account's ledger rows after row `afterId`, oldest first, with the job's source and batch. */
export async function listLedgerEntries(
  db: ReadSide,
  accountId: string,
  range: LedgerRange,
  afterId: number | null,
  limit: number,
): Promise<LedgerEntryRecord[]> {
  const { rows } = await db.sql.query<{
    id: string;
    kind: LedgerEntryRecord['kind'];
    amount: number;
    job_id: string | null;
    batch_id: string | null;
    source: Source | null;
    created_at: Date;
  }>(
    `SELECT l.id, l.kind::text AS kind, l.amount, l.job_id, j.batch_id, j.source::text AS source, l.created_at
     FROM credit_ledger l LEFT JOIN jobs j ON j.id = l.job_id
     WHERE ${RANGE}
     ORDER BY l.id
     LIMIT $5`,
    [accountId, range.createdAfter, range.createdBefore, afterId, limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    amount: r.amount,
    jobId: r.job_id,
    batchId: r.batch_id,
    source: r.source,
    createdAt: r.created_at,
  }));
}

/** How many rows listLedgerEntries would give in all from `afterId` on: what an export is charged before it streams. */
export async function countLedgerEntries(db: ReadSide, accountId: string, range: LedgerRange, afterId: number | null): Promise<number> {
  const { rows } = await db.sql.query<{ n: string }>(`SELECT count(*) AS n FROM credit_ledger l WHERE ${RANGE}`, [
    accountId,
    range.createdAfter,
    range.createdBefore,
    afterId,
  ]);
  return Number(rows[0]!.n);
}

export interface UsageDay {
  /** the UTC day, YYYY-MM-DD */
  date: string;
  source: Source;
  /** jobs charged that day (a job is charged once, at its terminal status) */
  jobsCharged: number;
  /** the leads those jobs delivered */
  leadsDelivered: number;
  creditsCharged: number;
}

export interface AccountUsage {
  days: UsageDay[];
  creditsGranted: number;
}

/**
 * The account's charges per UTC day and source between two days (both inclusive), from the ledger's charge rows
 * (each job's one charge, at its terminal status), with the leads the charged jobs delivered; and the credits
 * granted in the same days.
 */
export async function accountUsage(db: ReadSide, accountId: string, fromDay: string, toDay: string): Promise<AccountUsage> {
  const { rows } = await db.sql.query<{
    day: string | null;
    source: Source | null;
    jobs: string;
    leads: string | null;
    charged: string | null;
    granted: string | null;
  }>(
    `SELECT to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, j.source::text AS source,
            count(*) FILTER (WHERE l.kind = 'charge') AS jobs,
            sum(j.delivered_count) FILTER (WHERE l.kind = 'charge') AS leads,
            sum(l.amount) FILTER (WHERE l.kind = 'charge') AS charged,
            sum(l.amount) FILTER (WHERE l.kind = 'grant') AS granted
     FROM credit_ledger l LEFT JOIN jobs j ON j.id = l.job_id
     WHERE l.account_id = $1 AND l.kind IN ('charge', 'grant')
       AND l.created_at >= ($2::date)::timestamp AT TIME ZONE 'UTC'
       AND l.created_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
     GROUP BY 1, 2
     ORDER BY 1, 2`,
    [accountId, fromDay, toDay],
  );
  return {
    days: rows
      .filter((r) => r.source !== null && Number(r.jobs) > 0)
      .map((r) => ({
        date: r.day!,
        source: r.source!,
        jobsCharged: Number(r.jobs),
        leadsDelivered: Number(r.leads ?? 0),
        creditsCharged: Number(r.charged ?? 0),
      })),
    creditsGranted: rows.reduce((sum, r) => sum + Number(r.granted ?? 0), 0),
  };
}

import type { LeadFilter, LeadKeyset } from './lead-listing';
import type { ReadSide } from './read-replica';

/*
 * How many leads a download is about to stream, read from the jobs' counts (never their leads), so the
 * download can be charged and admitted by its cost before it starts (issue 31, finding 3). An upper
 * bound where leads were erased after a keyset's position; a running job's later pages are charged once
 * streamed.
 */
const KEPT = `GREATEST(0, j.delivered_count - j.leads_erased)`;

/** One result set's leads after position `after` (-1 from the start); 0 when the account has no such job. */
export async function estimateResultSetLeads(
  db: ReadSide,
  accountId: string,
  by: 'job' | 'resultSet',
  id: string,
  after: number,
): Promise<number> {
  const { rows } = await db.sql.query<{ n: number }>(
    `SELECT CASE WHEN j.leads_expired_at IS NOT NULL THEN 0 ELSE LEAST(${KEPT}, GREATEST(0, j.delivered_count - ($3::int + 1))) END AS n
     FROM jobs j WHERE j.${by === 'job' ? 'id' : 'result_set_id'} = $1 AND j.account_id = $2`,
    [id, accountId, after],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The account's leads a filtered download from `after` would stream, through jobs(account_id, created_at). */
export async function estimateAccountLeads(db: ReadSide, accountId: string, filter: LeadFilter, after: LeadKeyset | null): Promise<number> {
  const { rows } = await db.sql.query<{ n: string | null }>(
    `SELECT sum(${KEPT}) AS n FROM jobs j
     WHERE j.account_id = $1 AND j.leads_expired_at IS NULL
       AND ($2::text IS NULL OR j.source::text = $2)
       AND ($3::text IS NULL OR j.id = $3)
       AND ($4::timestamptz IS NULL OR j.created_at >= $4)
       AND ($5::timestamptz IS NULL OR j.created_at < $5)
       AND ($6::timestamptz IS NULL OR j.created_at >= $6)`,
    [accountId, filter.source, filter.jobId, filter.createdAfter, filter.createdBefore, after?.jobCreatedAt ?? null],
  );
  return Number(rows[0]?.n ?? 0);
}

import type { JobStatus, Source } from '@leadgen/domain';
import type { ReadSide } from './read-replica';

/** A delivered lead as the listings send it: the record as JSON text (never parsed here) and where it belongs. */
export interface LeadRow {
  jobId: string;
  resultSetId: string;
  jobCreatedAt: Date;
  position: number;
  deliveredAt: Date;
  /** the lead record as PostgreSQL stores it, JSON text */
  data: string;
}

interface Row {
  job_id: string;
  result_set_id: string;
  job_created_at: Date;
  position: number;
  created_at: Date;
  data: string;
}

const fromRow = (row: Row): LeadRow => ({
  jobId: row.job_id,
  resultSetId: row.result_set_id,
  jobCreatedAt: row.job_created_at,
  position: row.position,
  deliveredAt: row.created_at,
  data: row.data,
});

export interface ResultSetPage {
  jobId: string;
  resultSetId: string;
  status: JobStatus;
  /** when the retention sweep deleted the job's leads; null while they are kept */
  leadsExpiredAt: Date | null;
  leads: LeadRow[];
}

// One statement: the job (so an unknown or foreign one is told from an empty page) and up to $4 of its
// leads after position $3, through the unique index leads(job_id, position) of the job's partition (its created_at
// names it, and leads_legacy's -infinity those stored before partitioning: decision 046).
const resultSetPage = (by: 'id' | 'result_set_id') => `
SELECT j.id AS job_id, j.result_set_id, j.created_at AS job_created_at, j.status::text AS status, j.leads_expired_at,
       l.position, l.created_at, l.data::text AS data
FROM jobs j
LEFT JOIN LATERAL (
  SELECT position, created_at, data FROM leads
  WHERE job_id = j.id AND job_created_at IN ('-infinity', j.created_at) AND position > $3 ORDER BY position LIMIT $4
) l ON true
WHERE j.${by} = $1 AND j.account_id = $2
ORDER BY l.position`;
const BY_JOB = resultSetPage('id');
const BY_RESULT_SET = resultSetPage('result_set_id');

/**
 * A page of one job's leads in delivery order, after position `after` (-1 from the start); null when the
 * account has no such job. `by` says whether `id` is the job's id or its result set's.
 */
export async function pageResultSet(
  db: ReadSide,
  accountId: string,
  by: 'job' | 'resultSet',
  id: string,
  after: number,
  limit: number,
): Promise<ResultSetPage | null> {
  const { rows } = await db.sql.query<Row & { status: string; leads_expired_at: Date | null; position: number | null }>(
    by === 'job' ? BY_JOB : BY_RESULT_SET,
    [id, accountId, after, limit],
  );
  const first = rows[0];
  if (!first) return null;
  return {
    jobId: first.job_id,
    resultSetId: first.result_set_id,
    status: first.status as JobStatus,
    leadsExpiredAt: first.leads_expired_at,
    leads: first.position === null ? [] : rows.map(fromRow),
  };
}

export interface LeadFilter {
  source: Source | null;
  jobId: string | null;
  /** the job's creation time, inclusive */
  createdAfter: Date | null;
  /** the job's creation time, exclusive */
  createdBefore: Date | null;
}

/** The last lead of the previous page. */
export interface LeadKeyset {
  jobCreatedAt: Date;
  jobId: string;
  position: number;
}

// One statement, oldest job first, each job's leads in delivery order. leads has no account column:
// the account's jobs are walked through jobs(account_id, created_at) from the keyset's time
// (`j.created_at >= $6` is the index bound; the row comparison drops what was already sent) and each
// job's leads come through leads(job_id, position), so a page costs its own rows, not the account's history.
const ACCOUNT_LEADS = `
SELECT j.id AS job_id, j.result_set_id, j.created_at AS job_created_at, l.position, l.created_at, l.data::text AS data
FROM jobs j
JOIN leads l ON l.job_id = j.id AND l.job_created_at IN ('-infinity', j.created_at)
WHERE j.account_id = $1
  AND ($2::text IS NULL OR j.source::text = $2)
  AND ($3::text IS NULL OR j.id = $3)
  AND ($4::timestamptz IS NULL OR j.created_at >= $4)
  AND ($5::timestamptz IS NULL OR j.created_at < $5)
  AND ($6::timestamptz IS NULL OR (j.created_at >= $6 AND (j.created_at, j.id, l.position) > ($6, $7::text, $8::int)))
ORDER BY j.created_at, j.id, l.position
LIMIT $9`;

/** Up to `limit` leads of the account after `after`. */
export async function pageAccountLeads(
  db: ReadSide,
  accountId: string,
  filter: LeadFilter,
  after: LeadKeyset | null,
  limit: number,
): Promise<LeadRow[]> {
  const { rows } = await db.sql.query<Row>(ACCOUNT_LEADS, [
    accountId,
    filter.source,
    filter.jobId,
    filter.createdAfter,
    filter.createdBefore,
    after?.jobCreatedAt ?? null,
    after?.jobId ?? null,
    after?.position ?? null,
    limit,
  ]);
  return rows.map(fromRow);
}

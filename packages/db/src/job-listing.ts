import type { JobStatus, Source } from '@leadgen/domain';
import { jobColumns, jobFromRow, type JobRecord, type JobRow } from './jobs';
import type { ReadSide } from './read-replica';

export interface JobListFilter {
  statuses: JobStatus[] | null;
  source: Source | null;
  /** inclusive */
  createdAfter: Date | null;
  /** exclusive */
  createdBefore: Date | null;
  /** only the children of this batch */
  batchId?: string | null;
}

/** The last job of the previous page: the keyset the next page continues after. */
export interface JobKeyset {
  createdAt: Date;
  id: string;
}

const COLUMNS = jobColumns();

// One statement, newest first on (created_at DESC, id DESC). The index jobs(account_id, created_at)
// is walked backwards from the keyset's time (`created_at <= $6` is what the index can use; the row
// comparison then drops the rows of that same millisecond already sent), and the id tie-break is an
// incremental sort over jobs sharing a millisecond. A job created while a client pages is newer than
// its cursor, so it never shifts the pages still to come.
const LIST_JOBS = `
SELECT ${COLUMNS} FROM jobs
WHERE account_id = $1
  AND ($2::text[] IS NULL OR status::text = ANY($2::text[]))
  AND ($3::text IS NULL OR source::text = $3)
  AND ($4::timestamptz IS NULL OR created_at >= $4)
  AND ($5::timestamptz IS NULL OR created_at < $5)
  AND ($6::timestamptz IS NULL OR (created_at <= $6 AND (created_at, id) < ($6, $7::text)))
  AND ($9::text IS NULL OR batch_id = $9)
ORDER BY created_at DESC, id DESC
LIMIT $8`;

/** Up to `limit` jobs of the account after `after`, newest first. */
export async function listAccountJobs(
  db: ReadSide,
  accountId: string,
  filter: JobListFilter,
  after: JobKeyset | null,
  limit: number,
): Promise<JobRecord[]> {
  const { rows } = await db.sql.query<JobRow>(LIST_JOBS, [
    accountId,
    filter.statuses,
    filter.source,
    filter.createdAfter,
    filter.createdBefore,
    after?.createdAt ?? null,
    after?.id ?? null,
    limit,
    filter.batchId ?? null,
  ]);
  return rows.map(jobFromRow);
}

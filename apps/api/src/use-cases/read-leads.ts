import { pageAccountLeads, pageResultSet, type LeadFilter, type LeadKeyset, type LeadRow, type ReadSide } from '@leadgen/db';
import { errors, isTerminal, type JobStatus } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';

// Rows per statement of a CSV or JSON Lines export: large enough that the round trips do not
// dominate, small enough that a batch (~1 KiB per lead) stays a few MiB at most.
export const EXPORT_BATCH = 1000;
// Leads per COPY chunk of a job's or the account's download (packages/db/src/lead-export-copy.ts): each chunk is read
// whole before it is written, so a download holds two (the one written, the one read ahead). 5,000 grew the API's RSS
// by 35 MiB at 200,000 leads where 2,000 grew it by 5 MiB, for no clear gain in time (the bench's export section).
export const EXPORT_CHUNK = 2000;

export interface ResultSetSelection {
  jobId: string;
  resultSetId: string;
  status: JobStatus;
  /** false while the job runs: these are the leads committed so far */
  complete: boolean;
  leads: LeadRow[];
  /** where the job was read, and so where its download reads its leads (decision 047) */
  side: ReadSide;
}

/**
 * One page of a result set (by the job's id or the result set's), or 404 as if the job did not exist, or
 * 410 once the retention sweep deleted its leads.
 */
export async function readResultSet(
  deps: ApiDependencies,
  accountId: string,
  by: 'job' | 'resultSet',
  id: string,
  afterPosition: number,
  limit: number,
): Promise<ResultSetSelection> {
  // From the replica only once it has the job ended: it then holds all its leads (they were committed before the end).
  // A job the replica does not have yet, or sees running, is read from the primary: a client whose GET /jobs/:id said
  // COMPLETE reads the whole set at once, and a running job's leads as they are committed.
  const pinned = await deps.db.replica?.pin();
  let side: ReadSide = pinned ?? deps.db;
  let page = await pageResultSet(side, accountId, by, id, afterPosition, limit);
  if (pinned?.onReplica && (!page || !isTerminal(page.status))) {
    side = deps.db;
    page = await pageResultSet(side, accountId, by, id, afterPosition, limit);
  }
  if (!page) throw errors.jobNotFound();
  if (page.leadsExpiredAt) throw errors.leadsExpired(page.leadsExpiredAt);
  const complete = isTerminal(page.status);
  return { jobId: page.jobId, resultSetId: page.resultSetId, status: page.status, leads: page.leads, complete, side };
}

/**
 * The next page of a download under way (its status line is sent): leads deleted meanwhile (expired by the
 * retention sweep, erased) are skipped, and an empty page ends the download, rather than an error mid-stream.
 */
export async function nextResultSetPage(
  deps: ApiDependencies,
  accountId: string,
  by: 'job' | 'resultSet',
  id: string,
  afterPosition: number,
  limit: number,
): Promise<LeadRow[]> {
  return (await pageResultSet(deps.db, accountId, by, id, afterPosition, limit))?.leads ?? [];
}

/** One page of the account's leads, oldest job first. */
export function readAccountLeads(deps: ApiDependencies, accountId: string, filter: LeadFilter, after: LeadKeyset | null, limit: number) {
  return pageAccountLeads(deps.db.reads, accountId, filter, after, limit);
}

export const keysetOf = (row: LeadRow): LeadKeyset => ({ jobCreatedAt: row.jobCreatedAt, jobId: row.jobId, position: row.position });

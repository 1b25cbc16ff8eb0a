import type { BatchFacts, BatchStatus, Source } from '@leadgen/domain';
import type { Database } from './client';
import { jobColumns, jobFromRow, type JobRecord, type JobRow } from './jobs';
import type { LeadRow } from './lead-listing';
import type { ReadSide } from './read-replica';

/** A batch as the rest of the service sees it: its row, counters kept by its children's settlements. */
export interface BatchRecord extends BatchFacts {
  accountId: string;
  cancelledAt: Date | null;
}

interface BatchRow {
  id: string;
  account_id: string;
  name: string | null;
  status: string;
  exclude_delivered: boolean;
  max_credits: number | null;
  webhook_url: string | null;
  child_count: number;
  open_count: number;
  complete_count: number;
  partial_count: number;
  empty_count: number;
  failed_count: number;
  cancelled_count: number;
  requested_count: number;
  delivered_count: number;
  credits_reserved: number;
  credits_charged: number;
  cancelled_at: Date | null;
  created_at: Date;
  finished_at: Date | null;
  monitor_id: string | null;
  running: number;
}

// The row, and how many of its open children run now: the open ones only, through jobs(batch_id, batch_index),
// and none at all once the batch is terminal.
const batchSelect = (where: string) => `
SELECT b.id, b.account_id, b.name, b.status, b.exclude_delivered, b.max_credits, b.webhook_url, b.child_count, b.open_count,
       b.complete_count, b.partial_count, b.empty_count, b.failed_count, b.cancelled_count, b.requested_count, b.delivered_count,
       b.credits_reserved, b.credits_charged, b.cancelled_at, b.created_at, b.finished_at, b.monitor_id,
       CASE WHEN b.open_count = 0 THEN 0 ELSE
         (SELECT count(*)::int FROM jobs j WHERE j.batch_id = b.id AND j.status = 'running') END AS running
FROM batches b
WHERE ${where}`;

function batchFromRow(row: BatchRow): BatchRecord {
  const running = Math.min(row.running, row.open_count);
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    status: row.status as BatchStatus,
    excludeDelivered: row.exclude_delivered,
    maxCredits: row.max_credits,
    webhookUrl: row.webhook_url,
    childCount: row.child_count,
    open: { queued: row.open_count - running, running },
    settled: {
      COMPLETE: row.complete_count,
      PARTIAL: row.partial_count,
      EMPTY: row.empty_count,
      FAILED: row.failed_count,
      CANCELLED: row.cancelled_count,
    },
    requestedCount: row.requested_count,
    deliveredCount: row.delivered_count,
    creditsReserved: row.credits_reserved,
    creditsCharged: row.credits_charged,
    cancelledAt: row.cancelled_at,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    monitorId: row.monitor_id,
  };
}

const FIND_ACCOUNT_BATCH = batchSelect('b.id = $1 AND b.account_id = $2');
const FIND_BATCH = batchSelect('b.id = $1');

/** A batch of this account, or null: another account's batch is indistinguishable from none. `accountId` null: any account's. */
export async function findBatch(db: ReadSide, id: string, accountId: string | null): Promise<BatchRecord | null> {
  const { rows } =
    accountId === null ? await db.sql.query<BatchRow>(FIND_BATCH, [id]) : await db.sql.query<BatchRow>(FIND_ACCOUNT_BATCH, [id, accountId]);
  return rows[0] ? batchFromRow(rows[0]) : null;
}

export interface BatchListFilter {
  statuses: BatchStatus[] | null;
  createdAfter: Date | null;
  createdBefore: Date | null;
}

/** The last batch of the previous page. */
export interface BatchKeyset {
  createdAt: Date;
  id: string;
}

// Newest first through batches(account_id, created_at), as the job listing walks jobs.
const LIST_BATCHES = `${batchSelect(`b.account_id = $1
  AND ($2::text[] IS NULL OR b.status = ANY($2::text[]))
  AND ($3::timestamptz IS NULL OR b.created_at >= $3)
  AND ($4::timestamptz IS NULL OR b.created_at < $4)
  AND ($5::timestamptz IS NULL OR (b.created_at <= $5 AND (b.created_at, b.id) < ($5, $6::text)))`)}
ORDER BY b.created_at DESC, b.id DESC
LIMIT $7`;

export async function listAccountBatches(
  db: ReadSide,
  accountId: string,
  filter: BatchListFilter,
  after: BatchKeyset | null,
  limit: number,
): Promise<BatchRecord[]> {
  const { rows } = await db.sql.query<BatchRow>(LIST_BATCHES, [
    accountId,
    filter.statuses,
    filter.createdAfter,
    filter.createdBefore,
    after?.createdAt ?? null,
    after?.id ?? null,
    limit,
  ]);
  return rows.map(batchFromRow);
}

/**
 * Marks a running batch of the account cancelled (no child starts after this: start_job refuses them) and
 * returns the ids of its open children, to be settled CANCELLED by the caller: the held ones first (their
 * settlements free no slot, so none of the batch is released only to be cancelled), then the released ones. A batch already terminal is
 * left as it is. Null: no such batch.
 */
export async function requestBatchCancel(
  db: Database,
  id: string,
  accountId: string | null,
): Promise<{ status: BatchStatus; openChildren: Array<{ id: string; source: Source }> } | null> {
  const { rows } = await db.sql.query<{ status: string; open_children: Array<{ id: string; source: Source }> | null }>(
    `WITH marked AS (
       UPDATE batches SET cancelled_at = COALESCE(cancelled_at, now())
       WHERE id = $1 AND ($2::text IS NULL OR account_id = $2) AND status = 'running'
       RETURNING id
     )
     SELECT b.status,
            (SELECT json_agg(json_build_object('id', j.id, 'source', j.source) ORDER BY j.released_at IS NULL DESC, j.batch_index DESC) FROM jobs j
             WHERE j.batch_id = b.id AND j.status IN ('queued', 'running')) AS open_children
     FROM batches b WHERE b.id = $1 AND ($2::text IS NULL OR b.account_id = $2)`,
    [id, accountId],
  );
  const row = rows[0];
  if (!row) return null;
  return { status: row.status as BatchStatus, openChildren: row.open_children ?? [] };
}

/** A page of the batch's children in request order, after index `after` (-1 from the start). */
export async function pageBatchChildren(db: ReadSide, batchId: string, after: number, limit: number): Promise<JobRecord[]> {
  const { rows } = await db.sql.query<JobRow>(
    `SELECT ${jobColumns()} FROM jobs WHERE batch_id = $1 AND batch_index > $2 ORDER BY batch_index LIMIT $3`,
    [batchId, after, limit],
  );
  return rows.map(jobFromRow);
}

/** A batch's lead with where it is in the batch's stable order (child's index, then delivery position). */
export interface BatchLeadRow extends LeadRow {
  batchIndex: number;
}

/** The last lead of the previous page. */
export interface BatchLeadKeyset {
  batchIndex: number;
  position: number;
}

// One statement: the children in request order through jobs(batch_id, batch_index), each one's leads in
// delivery order through leads(job_id, position); a page costs its own rows.
const BATCH_LEADS = `
SELECT j.id AS job_id, j.result_set_id, j.created_at AS job_created_at, j.batch_index, l.position, l.created_at, l.data::text AS data
FROM jobs j
JOIN leads l ON l.job_id = j.id
WHERE j.batch_id = $1
  AND ($2::int IS NULL OR (j.batch_index, l.position) > ($2::int, $3::int))
ORDER BY j.batch_index, l.position
LIMIT $4`;

/** Up to `limit` of the batch's leads after `after`, in the batch's stable order. */
export async function pageBatchLeads(db: ReadSide, batchId: string, after: BatchLeadKeyset | null, limit: number): Promise<BatchLeadRow[]> {
  const { rows } = await db.sql.query<{
    job_id: string;
    result_set_id: string;
    job_created_at: Date;
    batch_index: number;
    position: number;
    created_at: Date;
    data: string;
  }>(BATCH_LEADS, [batchId, after?.batchIndex ?? null, after?.position ?? null, limit]);
  return rows.map((row) => ({
    jobId: row.job_id,
    resultSetId: row.result_set_id,
    jobCreatedAt: row.job_created_at,
    batchIndex: row.batch_index,
    position: row.position,
    deliveredAt: row.created_at,
    data: row.data,
  }));
}

/** Batches by status, for /metrics (a cold read at scrape time). */
export async function countBatchesByStatus(db: Database): Promise<Record<string, number>> {
  const { rows } = await db.sql.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM batches GROUP BY status');
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

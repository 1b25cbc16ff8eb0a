import {
  findBatch,
  listAccountBatches,
  pageBatchChildren,
  pageBatchLeads,
  type BatchLeadKeyset,
  type BatchLeadRow,
  type BatchRecord,
  type ReadSide,
} from '@leadgen/db';
import { errors, type BatchBody, type BatchStatus } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';
import { encodeCursor } from '../http/paging';
import { presentBatch } from '../presenters/batch-presenter';
import { presentJobSummary } from '../presenters/job-presenter';

/** What the batch listings take (their routes validate the queries into these). */
export interface ListBatchesQuery {
  limit: number;
  cursor?: { createdAt: Date; id: string };
  status?: BatchStatus[];
  createdAfter?: Date;
  createdBefore?: Date;
}

export interface BatchJobsQuery {
  limit: number;
  cursor?: number;
}

/** GET /api/v1/leads/batches/{batchId}: the caller's batch, or 404 as if it did not exist. */
export async function getAccountBatch(deps: ApiDependencies, accountId: string, batchId: string): Promise<BatchRecord> {
  const batch = await findBatch(deps.db, batchId, accountId);
  if (!batch) throw errors.batchNotFound();
  return batch;
}

export interface BatchesPage {
  items: BatchBody[];
  nextCursor: string | null;
}

/** GET /api/v1/leads/batches: one page of the account's batches, newest first, and the cursor of the next. */
export async function listBatches(deps: ApiDependencies, accountId: string, query: ListBatchesQuery): Promise<BatchesPage> {
  const filter = { statuses: query.status ?? null, createdAfter: query.createdAfter ?? null, createdBefore: query.createdBefore ?? null };
  // One more than asked: whether a next page exists is known without a second query.
  const batches = await listAccountBatches(deps.db.reads, accountId, filter, query.cursor ?? null, query.limit + 1);
  const page = batches.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map((batch) => presentBatch(batch, deps.config.http.publicBaseUrl)),
    nextCursor: batches.length > query.limit && last ? encodeCursor('b', [last.createdAt.toISOString(), last.id]) : null,
  };
}

/** GET /api/v1/leads/batches/{batchId}/jobs: the batch's children in request order. */
export async function listBatchJobs(deps: ApiDependencies, accountId: string, batchId: string, query: BatchJobsQuery) {
  const batch = await getAccountBatch(deps, accountId, batchId);
  const jobs = await pageBatchChildren(deps.db.reads, batch.id, query.cursor ?? -1, query.limit + 1);
  const page = jobs.slice(0, query.limit);
  return {
    items: page.map((job) => presentJobSummary(job, deps.config.http.publicBaseUrl)),
    nextCursor: jobs.length > query.limit ? encodeCursor('c', [query.limit + (query.cursor ?? -1)]) : null,
  };
}

/**
 * Where a batch's leads are read (decision 047): on the replica only once it has the batch ended, as a job's result
 * set (its leads were all committed before); a running batch, or one the replica does not have ended yet, on the primary.
 */
export async function batchLeadsSide(deps: ApiDependencies, batch: BatchRecord): Promise<ReadSide> {
  const pinned = await deps.db.replica?.pin();
  if (!pinned?.onReplica || batch.status === 'running') return deps.db;
  const there = await findBatch(pinned, batch.id, batch.accountId);
  return there && there.status !== 'running' ? pinned : deps.db;
}

/** One page of the batch's leads after `after`, in its stable order (children in request order, each one's leads in delivery order). */
export function readBatchLeads(side: ReadSide, batchId: string, after: BatchLeadKeyset | null, limit: number): Promise<BatchLeadRow[]> {
  return pageBatchLeads(side, batchId, after, limit);
}

import type { GenerationRequest, JobStatus, Lead, Source, StopReason, TerminalStatus } from '@leadgen/domain';
import type { Database, Tx } from './client';
import type { Job as JobRow } from './generated/prisma/client';

/** A job as the rest of the service sees it: a plain object, no Prisma types. */
export interface JobRecord {
  id: string;
  accountId: string;
  resultSetId: string;
  source: Source;
  status: JobStatus;
  request: GenerationRequest;
  requestedCount: number;
  deliveredCount: number;
  stopReason: StopReason | null;
  provider: string | null;
  creditsReserved: number;
  creditsCharged: number | null;
  cursor: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export function toJobRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    accountId: row.accountId,
    resultSetId: row.resultSetId,
    source: row.source,
    status: row.status,
    request: row.request as unknown as GenerationRequest,
    requestedCount: row.requestedCount,
    deliveredCount: row.deliveredCount,
    stopReason: row.stopReason as StopReason | null,
    provider: row.provider,
    creditsReserved: row.creditsReserved,
    creditsCharged: row.creditsCharged,
    cursor: row.cursor,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

export interface NewJob {
  id: string;
  accountId: string;
  resultSetId: string;
  request: GenerationRequest;
  creditsReserved: number;
}

export async function insertJob(tx: Tx, job: NewJob): Promise<JobRecord> {
  const row = await tx.job.create({
    data: {
      id: job.id,
      accountId: job.accountId,
      resultSetId: job.resultSetId,
      source: job.request.source,
      request: job.request as object,
      requestedCount: job.request.maxResults,
      creditsReserved: job.creditsReserved,
    },
  });
  return toJobRecord(row);
}

export async function findJob(db: Database | Tx, id: string): Promise<JobRecord | null> {
  const row = await db.job.findUnique({ where: { id } });
  return row ? toJobRecord(row) : null;
}

/** A job of this account, or null: another account's job is indistinguishable from none. */
export async function findAccountJob(db: Database | Tx, accountId: string, id: string): Promise<JobRecord | null> {
  const row = await db.job.findFirst({ where: { id, accountId } });
  return row ? toJobRecord(row) : null;
}

export async function listLeads(db: Database | Tx, jobId: string): Promise<Lead[]> {
  const rows = await db.lead.findMany({ where: { jobId }, orderBy: { position: 'asc' }, select: { data: true } });
  return rows.map((row) => row.data as unknown as Lead);
}

/**
 * Locks the job's row for the rest of the transaction. Every write that depends on the job's
 * status (a page commit, the terminal write, a cancel) takes this lock first, so they serialise.
 */
export async function lockJob(tx: Tx, id: string): Promise<JobRecord | null> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM jobs WHERE id = ${id} FOR UPDATE`;
  if (rows.length === 0) return null;
  return findJob(tx, id);
}

/** queued → running (or running again, after a worker died). Null when the job is already terminal. */
export async function markRunning(db: Database, id: string, provider: string): Promise<JobRecord | null> {
  const updated = await db.job.updateMany({
    where: { id, status: { in: ['queued', 'running'] } },
    data: { status: 'running', provider },
  });
  if (updated.count === 0) return null;
  // started_at is kept from the first start: the time budget covers the whole job, not one attempt.
  await db.job.updateMany({ where: { id, startedAt: null }, data: { startedAt: new Date() } });
  return findJob(db, id);
}

export interface TerminalWrite {
  status: TerminalStatus;
  stopReason: StopReason | null;
  creditsCharged: number;
}

/**
 * The compare-and-set that makes a terminal status final: it only matches a non-terminal row.
 * Returns false when the job had already reached a terminal status.
 */
export async function writeTerminal(tx: Tx, id: string, terminal: TerminalWrite): Promise<boolean> {
  const updated = await tx.job.updateMany({
    where: { id, status: { in: ['queued', 'running'] } },
    data: { ...terminal, finishedAt: new Date() },
  });
  return updated.count === 1;
}

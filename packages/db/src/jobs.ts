import type { GenerationRequest, JobFacts, JobStatus, Source, StopReason } from '@leadgen/domain';
import type { Database } from './client';

/** A job as the rest of the service sees it: a plain object, no Prisma or pg types (what a job body is made of, and more). */
export interface JobRecord extends JobFacts {
  accountId: string;
  cursor: string | null;
  /** when the retention sweep deleted the job's leads (LEAD_RETENTION_DAYS); null while they are kept */
  leadsExpiredAt: Date | null;
}

const COLUMNS = [
  'id',
  'account_id',
  'result_set_id',
  'source',
  'status',
  'request',
  'requested_count',
  'delivered_count',
  'stop_reason',
  'provider',
  'credits_reserved',
  'credits_charged',
  'cursor',
  'skipped_already_delivered',
  'skipped_suppressed',
  'created_at',
  'started_at',
  'finished_at',
  'monitor_id',
  'leads_expired_at',
  'batch_id',
  'skipped_filtered',
  'upstream_calls',
];

/** The columns a statement that returns a job selects, in the shape `jobFromRow` reads (enums as text). */
export function jobColumns(table?: string): string {
  const prefix = table ? `${table}.` : '';
  return COLUMNS.map((c) => (c === 'source' || c === 'status' ? `${prefix}${c}::text AS ${c}` : `${prefix}${c}`)).join(', ');
}
const JOB_COLUMNS = jobColumns();

export interface JobRow {
  id: string;
  account_id: string;
  result_set_id: string;
  source: string;
  status: string;
  request: unknown;
  requested_count: number;
  delivered_count: number;
  stop_reason: string | null;
  provider: string | null;
  credits_reserved: number;
  credits_charged: number | null;
  cursor: string | null;
  skipped_already_delivered: number;
  skipped_suppressed: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  monitor_id: string | null;
  leads_expired_at: Date | null;
  batch_id: string | null;
  skipped_filtered: number;
  upstream_calls: Record<string, number> | null;
}

export function jobFromRow(row: JobRow): JobRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    resultSetId: row.result_set_id,
    source: row.source as Source,
    status: row.status as JobStatus,
    request: row.request as GenerationRequest,
    requestedCount: row.requested_count,
    deliveredCount: row.delivered_count,
    stopReason: row.stop_reason as StopReason | null,
    provider: row.provider,
    creditsReserved: row.credits_reserved,
    creditsCharged: row.credits_charged,
    cursor: row.cursor,
    skippedAlreadyDelivered: row.skipped_already_delivered,
    skippedSuppressed: row.skipped_suppressed,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    monitorId: row.monitor_id,
    leadsExpiredAt: row.leads_expired_at,
    batchId: row.batch_id,
    skippedFiltered: row.skipped_filtered,
    upstreamCalls: row.upstream_calls ?? {},
  };
}

export async function findJob(db: Database, id: string): Promise<JobRecord | null> {
  const { rows } = await db.sql.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]);
  return rows[0] ? jobFromRow(rows[0]) : null;
}

/** A job of this account, or null: another account's job is indistinguishable from none. */
export async function findAccountJob(db: Database, accountId: string, id: string): Promise<JobRecord | null> {
  const { rows } = await db.sql.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1 AND account_id = $2`, [id, accountId]);
  return rows[0] ? jobFromRow(rows[0]) : null;
}

export interface JobView {
  job: JobRecord;
  /**
   * The job's leads as one JSON array text, exactly when the job is terminal: PostgreSQL builds it
   * and the API splices it into the body as it is, so a 100-lead answer is never parsed and re-serialised.
   */
  leadsJson: string | null;
}

/**
 * One statement (prisma/functions/read_job.sql): the job and, once it is terminal, its leads in delivery order. `accountId` null
 * reads any account's job (the creating request, which already knows it owns it).
 */
export async function readJobView(db: Database, id: string, accountId: string | null): Promise<JobView | null> {
  const { rows } = await db.sql.query<JobRow & { leads_json: string | null }>(
    `SELECT ${jobColumns('(job)')}, leads_json FROM read_job($1, $2)`,
    [id, accountId],
  );
  const row = rows[0];
  return row ? { job: jobFromRow(row), leadsJson: row.leads_json } : null;
}

/** The leads of a result set in delivery order (tests and cold paths; the API reads `readJobView`). */
export async function listLeads(db: Database, jobId: string): Promise<unknown[]> {
  const { rows } = await db.sql.query<{ data: unknown }>('SELECT data FROM leads WHERE job_id = $1 ORDER BY position', [jobId]);
  return rows.map((row) => row.data);
}

/** Why a batch's child was not started (docs/decisions/021-batches.md); the worker settles it CANCELLED. */
export type StartRefusal = 'batch_budget_exhausted' | 'batch_cancelled';

export type JobStart = { kind: 'started'; job: JobRecord } | { kind: 'refused'; job: JobRecord; refusal: StartRefusal } | null;

/**
 * queued → running (or running again, after a worker died), recording the provider, in one
 * statement (prisma/functions/start_job.sql) that also returns the row; a batch's child reserves its worst
 * case at its first start, or is refused. Null when the job is terminal or its row not visible (yet).
 * started_at keeps the first start: the time budget covers the whole job, not one attempt.
 */
export async function startJob(db: Database, id: string, provider: string, startedAt?: Date): Promise<JobStart> {
  // (beside openJob: the deferred start of a job that has not committed within its first instant, with the time its
  // worker took it; the tests)
  const { rows } = await db.sql.query<JobRow & { o_refusal: StartRefusal | null }>(
    `SELECT ${jobColumns('(b.job)')}, b.o_refusal FROM start_job($1, $2, $3) b`,
    [id, provider, startedAt ?? null],
  );
  const row = rows[0];
  if (!row) return null;
  return row.o_refusal ? { kind: 'refused', job: jobFromRow(row), refusal: row.o_refusal } : { kind: 'started', job: jobFromRow(row) };
}

/**
 * What a worker does when it takes a job from its queue (decision 037's hot path, prisma/functions/open_job.sql):
 * reads the row, and writes the start only when it must (`restarted`: the entry was taken before, so the first
 * start is recorded at once; a batch's child not reserved yet; a job never released). Otherwise `deferred`: the
 * start rides on the job's first commit (commitPage's `start`). `terminal`: the row as it is; null: no such row.
 */
export type JobOpening =
  | { kind: 'started'; job: JobRecord }
  | { kind: 'deferred'; job: JobRecord }
  | { kind: 'refused'; job: JobRecord; refusal: StartRefusal }
  | { kind: 'terminal'; job: JobRecord }
  | null;

export async function openJob(db: Database, id: string, provider: string, restarted: boolean): Promise<JobOpening> {
  const { rows } = await db.sql.query<JobRow & { o_refusal: StartRefusal | null; o_started: boolean }>(
    `SELECT ${jobColumns('(o.job)')}, o.o_refusal, o.o_started FROM open_job($1, $2, $3) o`,
    [id, provider, restarted],
  );
  const row = rows[0];
  // start_job found it terminal meanwhile (a cancel between the read and the start): read it as it is now
  if (!row) return null;
  const job = jobFromRow(row);
  if (row.o_refusal) return { kind: 'refused', job, refusal: row.o_refusal };
  if (row.o_started) return { kind: 'started', job };
  return job.status === 'queued' || job.status === 'running' ? { kind: 'deferred', job } : { kind: 'terminal', job };
}

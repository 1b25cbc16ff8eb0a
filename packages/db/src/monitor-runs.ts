import { createHash } from 'node:crypto';
import {
  MONITOR_PAUSED_EVENT,
  newId,
  newWebhookSecret,
  nextRunAfter,
  reservationFor,
  runBatchRequests,
  runRequest,
  type BatchStatus,
  type GenerationRequest,
  type JobStatus,
  type MonitorBatch,
  type MonitorFacts,
  type MonitorPauseReason,
  type Source,
} from '@leadgen/domain';
import type { Database } from './client';
import type { FairRelease } from './fair-release';
import { createBatchWithin, type NewBatch } from './batch-creation';
import { createJobWithin, type NewJob, type Queryable } from './job-creation';
import { inTransaction, monitorFromRow, type MonitorRow } from './monitors';
import { secretContext } from './secret-box';

// A monitor's runs (docs/decisions/022-monitors.md). A tick runs under the monitor's row lock and only
// when the stored due time has come: it creates the run's job through create_job (the generate path), or
// a batch monitor's batch through create_batch (the batches path), tags it, records the tick under its unique key (monitor, due time) and moves the due time, all in one
// transaction. Two workers, a retried alarm or an alarm restored from a sweep therefore find the due
// time moved and do nothing; were the lock ever bypassed, the unique key rolls the second run back.

// Idempotency keys clients send are printable ASCII; a unit separator cannot be one of them.
const SERVICE_KEY = '\u001f';

export interface MonitorRunOptions {
  idempotencyTtlHours: number;
  /** this many failed runs in a row (since the last resume) pause the monitor */
  pauseAfterFailures: number;
  /** the per-account cap of open released jobs per source (decision 020): a run is held or released like any job */
  fairness?: FairRelease;
}

export type TickOutcome =
  /** not due (yet), paused or deleted: nothing written; `nextRunAt` is when an alarm should ring, if ever */
  | { kind: 'not_due'; nextRunAt: Date | null }
  /** the previous run is still going: the tick is recorded as skipped */
  | { kind: 'skipped'; runId: string; nextRunAt: Date }
  /** the service paused the monitor; its monitor.paused deliveries to enqueue */
  | { kind: 'paused'; reason: MonitorPauseReason; webhookDeliveryIds: string[] }
  /** `released`: the jobs create_job released (this run's unless held, older held ones of the account), to enqueue */
  | { kind: 'created'; runId: string; jobId: string; source: Source; accountId: string; nextRunAt: Date; released: string[] }
  /** a batch monitor's run: its children are held; `sources` are theirs, to release after the commit (decision 020) */
  | { kind: 'batch_created'; runId: string; batchId: string; children: Source[]; accountId: string; nextRunAt: Date };

const LOCK_MONITOR = `SELECT m.id, m.account_id, m.name, m.request, m.batch, m.schedule, m.webhook_url, m.max_credits_per_run, m.enabled,
  m.paused_reason, m.next_run_at, m.failures_since, m.created_at, m.updated_at, m.deleted_at
  FROM monitors m WHERE m.id = $1 AND ($2::text IS NULL OR m.account_id = $2) FOR UPDATE`;

// The monitor's run still going: a queued or running job, or a batch not yet settled (its children are untagged).
const OPEN_RUN = `SELECT id AS job_id, NULL::text AS batch_id FROM jobs WHERE monitor_id = $1 AND status IN ('queued', 'running')
  UNION ALL SELECT NULL, id FROM batches WHERE monitor_id = $1 AND status = 'running' LIMIT 1`;

async function openRun(client: Queryable, monitorId: string): Promise<{ jobId: string | null; batchId: string | null } | null> {
  const { rows } = await client.query<{ job_id: string | null; batch_id: string | null }>(OPEN_RUN, [monitorId]);
  return rows[0] ? { jobId: rows[0].job_id, batchId: rows[0].batch_id } : null;
}

/** The job a run submits: the monitor's request with excludeDelivered forced, reserved as a generate is. */
function runJob(
  monitor: MonitorFacts & { request: GenerationRequest },
  idempotencyKey: string,
  fingerprint: string,
  options: MonitorRunOptions,
): NewJob {
  const request = runRequest(monitor);
  return {
    accountId: monitor.accountId,
    idempotencyKey,
    fingerprint,
    idempotencyTtlHours: options.idempotencyTtlHours,
    jobId: newId.job(),
    resultSetId: newId.resultSet(),
    request,
    creditsReserved: reservationFor(request.source, request.maxResults),
    webhookSecretCandidate: request.webhookUrl ? newWebhookSecret() : undefined,
    fairness: options.fairness,
  };
}

/**
 * The batch a batch monitor's run submits, as POST /leads/batches would make it: excludeDelivered forced,
 * maxCreditsPerRun as its maxCredits, the monitor's webhookUrl as the batch's (its terminal event goes there).
 */
function runBatch(
  monitor: MonitorFacts & { batch: MonitorBatch },
  idempotencyKey: string,
  fingerprint: string,
  options: MonitorRunOptions,
): NewBatch {
  return {
    accountId: monitor.accountId,
    idempotencyKey,
    fingerprint,
    idempotencyTtlHours: options.idempotencyTtlHours,
    batchId: newId.batch(),
    name: monitor.name,
    excludeDelivered: true,
    maxCredits: monitor.maxCreditsPerRun,
    webhookUrl: monitor.webhookUrl,
    children: runBatchRequests(monitor.batch).map((request) => ({
      jobId: newId.job(),
      resultSetId: newId.resultSet(),
      request,
      reserve: reservationFor(request.source, request.maxResults),
    })),
    webhookSecretCandidate: monitor.webhookUrl ? newWebhookSecret() : undefined,
  };
}

const isBatchMonitor = (monitor: MonitorFacts): monitor is MonitorFacts & { batch: MonitorBatch } => monitor.batch !== null;
const isRequestMonitor = (monitor: MonitorFacts): monitor is MonitorFacts & { request: GenerationRequest } => monitor.request !== null;

async function recordRun(
  client: Queryable,
  run: {
    id: string;
    monitorId: string;
    kind: 'scheduled' | 'manual';
    scheduledFor: Date | null;
    jobId: string | null;
    batchId?: string | null;
    skipReason: string | null;
  },
): Promise<void> {
  await client.query(
    'INSERT INTO monitor_runs (id, monitor_id, kind, scheduled_for, job_id, skip_reason, batch_id) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [run.id, run.monitorId, run.kind, run.scheduledFor, run.jobId, run.skipReason, run.batchId ?? null],
  );
}

/** Pauses the monitor for a reason of the service's and records its monitor.paused event (the outbox). */
async function pauseForService(
  client: Queryable,
  db: Pick<Database, 'secrets'>,
  monitor: MonitorFacts,
  reason: MonitorPauseReason,
  at: Date,
): Promise<string[]> {
  await client.query(`UPDATE monitors SET enabled = false, paused_reason = $2, next_run_at = NULL, updated_at = now() WHERE id = $1`, [
    monitor.id,
    reason,
  ]);
  if (monitor.webhookUrl) {
    // The monitor's webhookUrl is signed with the account's default secret, as a job's is: made now if no run made it yet.
    await client.query('INSERT INTO account_webhook_secrets (account_id, secret) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      monitor.accountId,
      db.secrets.seal(newWebhookSecret(), secretContext.accountDefault(monitor.accountId)),
    ]);
  }
  const data = JSON.stringify({ monitorId: monitor.id, name: monitor.name, reason, pausedAt: at.toISOString() });
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (account_id, endpoint_id, url, monitor_id, event_type, event_data)
     SELECT $1, e.id, NULL, $2, $3, $4::jsonb FROM webhook_endpoints e WHERE e.account_id = $1 AND e.disabled_at IS NULL AND e.events ? $3
     UNION ALL
     SELECT $1, NULL, $5, $2, $3, $4::jsonb WHERE $5::text IS NOT NULL
     RETURNING id`,
    [monitor.accountId, monitor.id, MONITOR_PAUSED_EVENT, data, monitor.webhookUrl],
  );
  return rows.map((row) => row.id);
}

/** Whether the monitor's last `count` runs (jobs, or a batch monitor's batches) since its last resume all FAILED. */
async function failingStreak(client: Queryable, monitorId: string, since: Date | null, count: number): Promise<boolean> {
  const { rows } = await client.query<{ status: string }>(
    `SELECT status FROM (
       SELECT status::text AS status, created_at FROM jobs WHERE monitor_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2)
       UNION ALL
       SELECT status, created_at FROM batches WHERE monitor_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2)
     ) runs ORDER BY created_at DESC LIMIT $3`,
    [monitorId, since, count],
  );
  return rows.length === count && rows.every((row) => row.status === 'FAILED');
}

/** One tick of a monitor's schedule at `now` (the alarm rang, or the sweep found it due). */
export async function tickMonitor(db: Database, monitorId: string, now: Date, options: MonitorRunOptions): Promise<TickOutcome> {
  return inTransaction(db, async (client): Promise<TickOutcome> => {
    const { rows } = await client.query<MonitorRow>(LOCK_MONITOR, [monitorId, null]);
    const row = rows[0];
    if (!row || row.deleted_at || !row.enabled || !row.next_run_at) return { kind: 'not_due', nextRunAt: null };
    if (row.next_run_at.getTime() > now.getTime()) return { kind: 'not_due', nextRunAt: row.next_run_at };
    const monitor = monitorFromRow(row);
    const dueAt = row.next_run_at;
    // Ticks missed while nobody was there collapse into this one: the next lies after now.
    const nextRunAt = nextRunAfter(monitor.schedule, dueAt, now);
    const moveOn = () => client.query('UPDATE monitors SET next_run_at = $2, updated_at = now() WHERE id = $1', [monitorId, nextRunAt]);
    // This tick's run row: what it made (a job or a batch), or why it made none.
    const scheduledRun = async (made: { jobId?: string; batchId?: string }, skipReason: string | null = null) => {
      const runId = newId.monitorRun();
      const { jobId = null, batchId = null } = made;
      await recordRun(client, { id: runId, monitorId, kind: 'scheduled', scheduledFor: dueAt, jobId, batchId, skipReason });
      return runId;
    };

    if (await openRun(client, monitorId)) {
      const runId = await scheduledRun({}, 'overlap');
      await moveOn();
      return { kind: 'skipped', runId, nextRunAt };
    }
    if (await failingStreak(client, monitorId, row.failures_since, options.pauseAfterFailures)) {
      await scheduledRun({}, 'consecutive_failures');
      return {
        kind: 'paused',
        reason: 'consecutive_failures',
        webhookDeliveryIds: await pauseForService(client, db, monitor, 'consecutive_failures', now),
      };
    }
    // The tick's own key: the generate (or batches) path's idempotency binds it once, as the unique run row does.
    const key = `${SERVICE_KEY}monitor:${monitorId}:${dueAt.toISOString()}`;
    const fingerprint = createHash('sha256').update(key).digest('hex');
    const insufficient = async (): Promise<TickOutcome> => {
      await scheduledRun({}, 'insufficient_credits');
      return {
        kind: 'paused',
        reason: 'insufficient_credits',
        webhookDeliveryIds: await pauseForService(client, db, monitor, 'insufficient_credits', now),
      };
    };
    if (isBatchMonitor(monitor)) {
      const batch = runBatch(monitor, key, fingerprint, options);
      const creation = await createBatchWithin(client, db, batch);
      if (!creation || creation.kind === 'bound') {
        await moveOn();
        return { kind: 'not_due', nextRunAt };
      }
      // The batches API's 402: the account cannot cover the first child.
      if (creation.kind === 'insufficient_credits') return insufficient();
      await client.query('UPDATE batches SET monitor_id = $2 WHERE id = $1', [batch.batchId, monitorId]);
      const runId = await scheduledRun({ batchId: batch.batchId });
      await moveOn();
      return {
        kind: 'batch_created',
        runId,
        batchId: batch.batchId,
        children: batch.children.map((child) => child.request.source),
        accountId: monitor.accountId,
        nextRunAt,
      };
    }
    if (!isRequestMonitor(monitor)) throw new Error(`monitor ${monitorId} has neither a request nor a batch`);
    const job = runJob(monitor, key, fingerprint, options);
    const creation = await createJobWithin(client, db, job);
    if (!creation || creation.kind === 'bound') {
      // The tick's key is bound: this tick made its run already. Only the due time is left to move.
      await moveOn();
      return { kind: 'not_due', nextRunAt };
    }
    if (creation.kind === 'insufficient_credits') return insufficient();
    await client.query('UPDATE jobs SET monitor_id = $2 WHERE id = $1', [job.jobId, monitorId]);
    const runId = await scheduledRun({ jobId: job.jobId });
    await moveOn();
    return {
      kind: 'created',
      runId,
      jobId: job.jobId,
      source: job.request.source,
      accountId: monitor.accountId,
      nextRunAt,
      released: creation.released,
    };
  });
}

/** A run's job, or a batch monitor's run's batch: exactly one is set. */
export type RunRef = { jobId: string; batchId: null } | { jobId: null; batchId: string };

export type ManualRunOutcome =
  | { kind: 'not_found' }
  /** the key was used with this monitor before: that run's job or batch */
  | ({ kind: 'replay' } & RunRef)
  /** the key was used for something else */
  | { kind: 'key_reused' }
  | ({ kind: 'in_progress' } & RunRef)
  | { kind: 'insufficient_credits'; required: number; available: number }
  | { kind: 'created'; runId: string; jobId: string; batchId: null; source: Source; released: string[] }
  /** a batch monitor's run: its children are held, to release after the commit (their sources) */
  | { kind: 'created'; runId: string; jobId: null; batchId: string; children: Source[] };

const jobRef = (jobId: string): RunRef => ({ jobId, batchId: null });
const batchRef = (batchId: string): RunRef => ({ jobId: null, batchId });

/**
 * POST /monitors/{id}/run: one run now, whatever the schedule (a paused monitor too), idempotent per
 * Idempotency-Key. Under the monitor's row lock, so it never overlaps a tick's run; the schedule is not moved.
 * The key binds the run's job (idempotency_keys) or a batch monitor's batch (batches.idempotency_key): both are read.
 */
export async function startManualRun(
  db: Database,
  accountId: string,
  monitorId: string,
  clientKey: string,
  options: MonitorRunOptions,
): Promise<ManualRunOutcome> {
  const key = `${SERVICE_KEY}monitor-run:${clientKey}`;
  const fingerprint = createHash('sha256').update(`monitor-run:${monitorId}`).digest('hex');
  return inTransaction(db, async (client): Promise<ManualRunOutcome> => {
    const { rows } = await client.query<MonitorRow>(LOCK_MONITOR, [monitorId, accountId]);
    const row = rows[0];
    if (!row || row.deleted_at) return { kind: 'not_found' };
    const bound = await client.query<{ job_id: string | null; batch_id: string | null; fingerprint: string }>(
      `SELECT job_id, NULL::text AS batch_id, fingerprint FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND expires_at > now()
       UNION ALL
       SELECT NULL, id, fingerprint FROM batches WHERE account_id = $1 AND idempotency_key = $2 AND key_expires_at > now()`,
      [accountId, key],
    );
    const earlier = bound.rows[0];
    if (earlier) {
      if (earlier.fingerprint !== fingerprint) return { kind: 'key_reused' };
      return { kind: 'replay', ...(earlier.job_id ? jobRef(earlier.job_id) : batchRef(earlier.batch_id!)) };
    }
    const open = await openRun(client, monitorId);
    if (open) return { kind: 'in_progress', ...(open.jobId ? jobRef(open.jobId) : batchRef(open.batchId!)) };
    const monitor = monitorFromRow(row);
    if (isBatchMonitor(monitor)) {
      const batch = runBatch(monitor, key, fingerprint, options);
      const creation = await createBatchWithin(client, db, batch);
      if (!creation) throw new Error('idempotency key could neither be bound nor read');
      if (creation.kind === 'bound')
        return creation.fingerprint === fingerprint ? { kind: 'replay', ...batchRef(creation.batchId) } : { kind: 'key_reused' };
      if (creation.kind === 'insufficient_credits')
        return { kind: 'insufficient_credits', required: creation.required, available: creation.available };
      await client.query('UPDATE batches SET monitor_id = $2 WHERE id = $1', [batch.batchId, monitorId]);
      const runId = newId.monitorRun();
      await recordRun(client, {
        id: runId,
        monitorId,
        kind: 'manual',
        scheduledFor: null,
        jobId: null,
        batchId: batch.batchId,
        skipReason: null,
      });
      return { kind: 'created', runId, jobId: null, batchId: batch.batchId, children: batch.children.map((child) => child.request.source) };
    }
    if (!isRequestMonitor(monitor)) throw new Error(`monitor ${monitorId} has neither a request nor a batch`);
    const job = runJob(monitor, key, fingerprint, options);
    const creation = await createJobWithin(client, db, job);
    if (!creation) throw new Error('idempotency key could neither be bound nor read');
    if (creation.kind === 'bound')
      return creation.fingerprint === fingerprint ? { kind: 'replay', ...jobRef(creation.jobId) } : { kind: 'key_reused' };
    if (creation.kind === 'insufficient_credits')
      return { kind: 'insufficient_credits', required: job.creditsReserved, available: creation.available };
    await client.query('UPDATE jobs SET monitor_id = $2 WHERE id = $1', [job.jobId, monitorId]);
    const runId = newId.monitorRun();
    await recordRun(client, { id: runId, monitorId, kind: 'manual', scheduledFor: null, jobId: job.jobId, skipReason: null });
    return { kind: 'created', runId, jobId: job.jobId, batchId: null, source: job.request.source, released: creation.released };
  });
}

export interface MonitorRunRecord {
  id: string;
  monitorId: string;
  kind: 'scheduled' | 'manual';
  scheduledFor: Date | null;
  skipReason: string | null;
  createdAt: Date;
  job: {
    id: string;
    status: JobStatus;
    requestedCount: number;
    deliveredCount: number;
    skippedAlreadyDelivered: number;
    creditsCharged: number | null;
    finishedAt: Date | null;
  } | null;
  /** a batch monitor's run: its batch, with its children's counts summed */
  batch: {
    id: string;
    status: BatchStatus;
    childCount: number;
    requestedCount: number;
    deliveredCount: number;
    skippedAlreadyDelivered: number;
    /** null while the batch runs, as a job's until it is terminal */
    creditsCharged: number | null;
    finishedAt: Date | null;
  } | null;
}

/** A monitor's runs (a deleted monitor's too), newest first, after the cursor `before` ({ createdAt, id }). */
export async function listMonitorRuns(
  db: Database,
  monitorId: string,
  page: { limit: number; before?: { createdAt: Date; id: string } },
): Promise<{ items: MonitorRunRecord[]; next: { createdAt: Date; id: string } | null }> {
  const { rows } = await db.sql.query<{
    id: string;
    monitor_id: string;
    kind: 'scheduled' | 'manual';
    scheduled_for: Date | null;
    skip_reason: string | null;
    created_at: Date;
    job_id: string | null;
    status: JobStatus | null;
    requested_count: number | null;
    delivered_count: number | null;
    skipped_already_delivered: number | null;
    credits_charged: number | null;
    finished_at: Date | null;
    batch_id: string | null;
    batch_status: BatchStatus | null;
    batch_child_count: number | null;
    batch_requested: number | null;
    batch_delivered: number | null;
    batch_skipped: number | null;
    batch_charged: number | null;
    batch_finished_at: Date | null;
  }>(
    // A batch's skipped leads are its children's (the batch row does not keep them): summed through jobs(batch_id).
    `SELECT r.id, r.monitor_id, r.kind, r.scheduled_for, r.skip_reason, r.created_at, j.id AS job_id, j.status::text AS status,
       j.requested_count, j.delivered_count, j.skipped_already_delivered, j.credits_charged, j.finished_at,
       b.id AS batch_id, b.status AS batch_status, b.child_count AS batch_child_count, b.requested_count AS batch_requested,
       b.delivered_count AS batch_delivered, b.credits_charged AS batch_charged, b.finished_at AS batch_finished_at,
       CASE WHEN b.id IS NULL THEN NULL ELSE
         (SELECT COALESCE(sum(c.skipped_already_delivered), 0)::int FROM jobs c WHERE c.batch_id = b.id) END AS batch_skipped
     FROM monitor_runs r LEFT JOIN jobs j ON j.id = r.job_id LEFT JOIN batches b ON b.id = r.batch_id
     WHERE r.monitor_id = $1 AND ($2::timestamptz IS NULL OR (r.created_at, r.id) < ($2, $3))
     ORDER BY r.created_at DESC, r.id DESC LIMIT $4`,
    [monitorId, page.before?.createdAt ?? null, page.before?.id ?? null, page.limit + 1],
  );
  const items = rows.slice(0, page.limit).map((row): MonitorRunRecord => ({
    id: row.id,
    monitorId: row.monitor_id,
    kind: row.kind,
    scheduledFor: row.scheduled_for,
    skipReason: row.skip_reason,
    createdAt: row.created_at,
    job: row.job_id
      ? {
          id: row.job_id,
          status: row.status!,
          requestedCount: row.requested_count!,
          deliveredCount: row.delivered_count!,
          skippedAlreadyDelivered: row.skipped_already_delivered!,
          creditsCharged: row.credits_charged,
          finishedAt: row.finished_at,
        }
      : null,
    batch: row.batch_id
      ? {
          id: row.batch_id,
          status: row.batch_status!,
          childCount: row.batch_child_count!,
          requestedCount: row.batch_requested!,
          deliveredCount: row.batch_delivered!,
          skippedAlreadyDelivered: row.batch_skipped!,
          creditsCharged: row.batch_status === 'running' ? null : row.batch_charged,
          finishedAt: row.batch_finished_at,
        }
      : null,
  }));
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? { createdAt: last.createdAt, id: last.id } : null };
}

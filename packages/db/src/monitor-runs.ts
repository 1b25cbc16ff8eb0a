import {
  MONITOR_PAUSED_EVENT,
  newWebhookSecret,
  type BatchStatus,
  type JobStatus,
  type MonitorFacts,
  type MonitorPauseReason,
} from '@leadgen/domain';
import type { Database, Queryable } from './client';
import { monitorFromRow, type MonitorRow } from './monitors';
import { secretContext } from './secret-box';
import type { ReadSide } from './read-replica';

// The rows of a monitor's runs (docs/decisions/022-monitors.md): what a tick or a manual run reads and writes,
// each on the client of the transaction its caller holds (inTransaction). The rules that order these writes
// (a tick runs under the monitor's row lock and only once its due time has come; the run's job or batch, its
// tag, its row and the moved due time commit together) are @leadgen/commands' monitor-runs.ts.

/** A run's job, or a batch monitor's run's batch: exactly one is set. */
export type RunRef = { jobId: string; batchId: null } | { jobId: null; batchId: string };

export const jobRun = (jobId: string): RunRef => ({ jobId, batchId: null });
export const batchRun = (batchId: string): RunRef => ({ jobId: null, batchId });
const runOf = (row: { job_id: string | null; batch_id: string | null }): RunRef =>
  row.job_id ? jobRun(row.job_id) : batchRun(row.batch_id!);

const LOCK_MONITOR = `SELECT m.id, m.account_id, m.name, m.request, m.batch, m.schedule, m.webhook_url, m.max_credits_per_run, m.enabled,
  m.paused_reason, m.next_run_at, m.failures_since, m.created_at, m.updated_at, m.deleted_at
  FROM monitors m WHERE m.id = $1 AND ($2::text IS NULL OR m.account_id = $2) FOR UPDATE`;

export interface LockedMonitor {
  monitor: MonitorFacts;
  deleted: boolean;
  /** since when failed runs count toward a pause (the last resume) */
  failuresSince: Date | null;
}

/** The monitor under its row lock (any account's with a null `accountId`), deleted ones too; null when none. */
export async function lockMonitor(client: Queryable, monitorId: string, accountId: string | null): Promise<LockedMonitor | null> {
  const { rows } = await client.query<MonitorRow>(LOCK_MONITOR, [monitorId, accountId]);
  const row = rows[0];
  return row ? { monitor: monitorFromRow(row), deleted: row.deleted_at !== null, failuresSince: row.failures_since } : null;
}

// The monitor's run still going: a queued or running job, or a batch not yet settled (its children are untagged).
const OPEN_RUN = `SELECT id AS job_id, NULL::text AS batch_id FROM jobs WHERE monitor_id = $1 AND status IN ('queued', 'running')
  UNION ALL SELECT NULL, id FROM batches WHERE monitor_id = $1 AND status = 'running' LIMIT 1`;

export async function findOpenRun(client: Queryable, monitorId: string): Promise<RunRef | null> {
  const { rows } = await client.query<{ job_id: string | null; batch_id: string | null }>(OPEN_RUN, [monitorId]);
  return rows[0] ? runOf(rows[0]) : null;
}

/** What an idempotency key of the account binds while it lives: a job (idempotency_keys) or a batch (batches.idempotency_key). */
export async function findKeyedRun(
  client: Queryable,
  accountId: string,
  key: string,
): Promise<{ run: RunRef; fingerprint: string } | null> {
  const { rows } = await client.query<{ job_id: string | null; batch_id: string | null; fingerprint: string }>(
    `SELECT job_id, NULL::text AS batch_id, fingerprint FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND expires_at > now()
     UNION ALL
     SELECT NULL, id, fingerprint FROM batches WHERE account_id = $1 AND idempotency_key = $2 AND key_expires_at > now()`,
    [accountId, key],
  );
  return rows[0] ? { run: runOf(rows[0]), fingerprint: rows[0].fingerprint } : null;
}

/** Tags the run's job or batch with its monitor: the monitor's open run and failures are read through it. */
export async function tagRun(client: Queryable, monitorId: string, run: RunRef): Promise<void> {
  if (run.jobId) await client.query('UPDATE jobs SET monitor_id = $2 WHERE id = $1', [run.jobId, monitorId]);
  else await client.query('UPDATE batches SET monitor_id = $2 WHERE id = $1', [run.batchId, monitorId]);
}

export interface NewMonitorRun {
  id: string;
  monitorId: string;
  kind: 'scheduled' | 'manual';
  scheduledFor: Date | null;
  /** what the run made; null with a skip reason */
  run: RunRef | null;
  skipReason: string | null;
}

/** The run's row; unique per (monitor, scheduled time), so a second scheduled run of one due time rolls back. */
export async function insertMonitorRun(client: Queryable, run: NewMonitorRun): Promise<void> {
  await client.query(
    'INSERT INTO monitor_runs (id, monitor_id, kind, scheduled_for, job_id, skip_reason, batch_id) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [run.id, run.monitorId, run.kind, run.scheduledFor, run.run?.jobId ?? null, run.skipReason, run.run?.batchId ?? null],
  );
}

export async function moveDueTime(client: Queryable, monitorId: string, nextRunAt: Date): Promise<void> {
  await client.query('UPDATE monitors SET next_run_at = $2, updated_at = now() WHERE id = $1', [monitorId, nextRunAt]);
}

/** Pauses the monitor for a reason of the service's and records its monitor.paused event (the outbox): the deliveries' ids. */
export async function pauseMonitorForService(
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

/** Whether the monitor's last `count` runs (jobs, or a batch monitor's batches) since `since` all FAILED. */
export async function lastRunsFailed(client: Queryable, monitorId: string, since: Date | null, count: number): Promise<boolean> {
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
  db: ReadSide,
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

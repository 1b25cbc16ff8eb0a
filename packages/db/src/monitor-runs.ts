import { createHash } from 'node:crypto';
import {
  MONITOR_PAUSED_EVENT,
  newId,
  newWebhookSecret,
  nextRunAfter,
  reservationFor,
  runRequest,
  type JobStatus,
  type MonitorFacts,
  type MonitorPauseReason,
  type Source,
} from '@leadgen/domain';
import type { Database } from './client';
import type { FairRelease } from './fair-release';
import { createJobWithin, type NewJob, type Queryable } from './job-creation';
import { inTransaction, monitorFromRow, type MonitorRow } from './monitors';
import { secretContext } from './secret-box';

// A monitor's runs (docs/decisions/022-monitors.md). A tick runs under the monitor's row lock and only
// when the stored due time has come: it creates the run's job through create_job (the generate path),
// tags it, records the tick under its unique key (monitor, due time) and moves the due time, all in one
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
  | { kind: 'created'; runId: string; jobId: string; source: Source; accountId: string; nextRunAt: Date; released: string[] };

const LOCK_MONITOR = `SELECT m.id, m.account_id, m.name, m.request, m.schedule, m.webhook_url, m.max_credits_per_run, m.enabled,
  m.paused_reason, m.next_run_at, m.failures_since, m.created_at, m.updated_at, m.deleted_at
  FROM monitors m WHERE m.id = $1 AND ($2::text IS NULL OR m.account_id = $2) FOR UPDATE`;

const OPEN_RUN = `SELECT id FROM jobs WHERE monitor_id = $1 AND status IN ('queued', 'running') LIMIT 1`;

/** The job a run submits: the monitor's request with excludeDelivered forced, reserved as a generate is. */
function runJob(monitor: MonitorFacts, idempotencyKey: string, fingerprint: string, options: MonitorRunOptions): NewJob {
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

async function recordRun(
  client: Queryable,
  run: {
    id: string;
    monitorId: string;
    kind: 'scheduled' | 'manual';
    scheduledFor: Date | null;
    jobId: string | null;
    skipReason: string | null;
  },
): Promise<void> {
  await client.query(
    'INSERT INTO monitor_runs (id, monitor_id, kind, scheduled_for, job_id, skip_reason) VALUES ($1, $2, $3, $4, $5, $6)',
    [run.id, run.monitorId, run.kind, run.scheduledFor, run.jobId, run.skipReason],
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

/** Whether the monitor's last `count` runs since its last resume all FAILED. */
async function failingStreak(client: Queryable, monitorId: string, since: Date | null, count: number): Promise<boolean> {
  const { rows } = await client.query<{ status: JobStatus }>(
    `SELECT status::text AS status FROM jobs WHERE monitor_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2)
     ORDER BY created_at DESC LIMIT $3`,
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

    if ((await client.query(OPEN_RUN, [monitorId])).rows.length > 0) {
      const runId = newId.monitorRun();
      await recordRun(client, { id: runId, monitorId, kind: 'scheduled', scheduledFor: dueAt, jobId: null, skipReason: 'overlap' });
      await moveOn();
      return { kind: 'skipped', runId, nextRunAt };
    }
    if (await failingStreak(client, monitorId, row.failures_since, options.pauseAfterFailures)) {
      await recordRun(client, {
        id: newId.monitorRun(),
        monitorId,
        kind: 'scheduled',
        scheduledFor: dueAt,
        jobId: null,
        skipReason: 'consecutive_failures',
      });
      return {
        kind: 'paused',
        reason: 'consecutive_failures',
        webhookDeliveryIds: await pauseForService(client, db, monitor, 'consecutive_failures', now),
      };
    }
    // The tick's own key: the generate path's idempotency binds it once, as the unique run row does.
    const key = `${SERVICE_KEY}monitor:${monitorId}:${dueAt.toISOString()}`;
    const job = runJob(monitor, key, createHash('sha256').update(key).digest('hex'), options);
    const creation = await createJobWithin(client, db, job);
    if (!creation || creation.kind === 'bound') {
      // The tick's key is bound: this tick made its run already. Only the due time is left to move.
      await moveOn();
      return { kind: 'not_due', nextRunAt };
    }
    if (creation.kind === 'insufficient_credits') {
      await recordRun(client, {
        id: newId.monitorRun(),
        monitorId,
        kind: 'scheduled',
        scheduledFor: dueAt,
        jobId: null,
        skipReason: 'insufficient_credits',
      });
      return {
        kind: 'paused',
        reason: 'insufficient_credits',
        webhookDeliveryIds: await pauseForService(client, db, monitor, 'insufficient_credits', now),
      };
    }
    await client.query('UPDATE jobs SET monitor_id = $2 WHERE id = $1', [job.jobId, monitorId]);
    const runId = newId.monitorRun();
    await recordRun(client, { id: runId, monitorId, kind: 'scheduled', scheduledFor: dueAt, jobId: job.jobId, skipReason: null });
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

export type ManualRunOutcome =
  | { kind: 'not_found' }
  /** the key was used with this monitor before: that run's job */
  | { kind: 'replay'; jobId: string }
  /** the key was used for something else */
  | { kind: 'key_reused' }
  | { kind: 'in_progress'; jobId: string }
  | { kind: 'insufficient_credits'; required: number; available: number }
  | { kind: 'created'; runId: string; jobId: string; source: Source; released: string[] };

/**
 * POST /monitors/{id}/run: one run now, whatever the schedule (a paused monitor too), idempotent per
 * Idempotency-Key. Under the monitor's row lock, so it never overlaps a tick's run; the schedule is not moved.
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
    const bound = await client.query<{ job_id: string; fingerprint: string }>(
      'SELECT job_id, fingerprint FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND expires_at > now()',
      [accountId, key],
    );
    if (bound.rows[0])
      return bound.rows[0].fingerprint === fingerprint ? { kind: 'replay', jobId: bound.rows[0].job_id } : { kind: 'key_reused' };
    const open = await client.query<{ id: string }>(OPEN_RUN, [monitorId]);
    if (open.rows[0]) return { kind: 'in_progress', jobId: open.rows[0].id };
    const job = runJob(monitorFromRow(row), key, fingerprint, options);
    const creation = await createJobWithin(client, db, job);
    if (!creation) throw new Error('idempotency key could neither be bound nor read');
    if (creation.kind === 'bound')
      return creation.fingerprint === fingerprint ? { kind: 'replay', jobId: creation.jobId } : { kind: 'key_reused' };
    if (creation.kind === 'insufficient_credits')
      return { kind: 'insufficient_credits', required: job.creditsReserved, available: creation.available };
    await client.query('UPDATE jobs SET monitor_id = $2 WHERE id = $1', [job.jobId, monitorId]);
    const runId = newId.monitorRun();
    await recordRun(client, { id: runId, monitorId, kind: 'manual', scheduledFor: null, jobId: job.jobId, skipReason: null });
    return { kind: 'created', runId, jobId: job.jobId, source: job.request.source, released: creation.released };
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
  }>(
    `SELECT r.id, r.monitor_id, r.kind, r.scheduled_for, r.skip_reason, r.created_at, j.id AS job_id, j.status::text AS status,
       j.requested_count, j.delivered_count, j.skipped_already_delivered, j.credits_charged, j.finished_at
     FROM monitor_runs r LEFT JOIN jobs j ON j.id = r.job_id
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
  }));
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? { createdAt: last.createdAt, id: last.id } : null };
}

import type {
  BatchStatus,
  GenerationRequest,
  JobStatus,
  MonitorBatch,
  MonitorFacts,
  MonitorFieldsChange,
  MonitorPauseReason,
  MonitorSchedule,
} from '@leadgen/domain';
import { inTransaction, type Database } from './client';
import type { ReadSide } from './read-replica';

// Monitors (docs/decisions/022-monitors.md): their rows. Cold paths (a request per monitor change),
// so plain statements; a change that moves the next run says where the alarm was and is now.

export interface MonitorLastRun {
  runId: string;
  jobId: string | null;
  /** a batch monitor's run: its batch */
  batchId: string | null;
  /** the job's status, or the batch's (running until every child ended) */
  status: JobStatus | BatchStatus | null;
  deliveredCount: number | null;
  skipReason: string | null;
  scheduledFor: Date | null;
  createdAt: Date;
}

export interface MonitorRecord extends MonitorFacts {
  lastRun: MonitorLastRun | null;
}

export interface MonitorRow {
  id: string;
  account_id: string;
  name: string;
  request: unknown;
  batch: unknown;
  schedule: unknown;
  webhook_url: string | null;
  max_credits_per_run: number | null;
  enabled: boolean;
  paused_reason: string | null;
  next_run_at: Date | null;
  failures_since: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const MONITOR_COLUMNS = `m.id, m.account_id, m.name, m.request, m.batch, m.schedule, m.webhook_url, m.max_credits_per_run, m.enabled,
  m.paused_reason, m.next_run_at, m.failures_since, m.created_at, m.updated_at, m.deleted_at`;

// The monitor with its newest run (a tick skipped counts: it is what happened last): its job's or its batch's status.
const WITH_LAST_RUN = `SELECT ${MONITOR_COLUMNS}, r.id AS run_id, r.job_id AS run_job_id, r.batch_id AS run_batch_id,
  COALESCE(j.status::text, b.status) AS run_status, COALESCE(j.delivered_count, b.delivered_count) AS run_delivered,
  r.skip_reason AS run_skip_reason, r.scheduled_for AS run_scheduled_for, r.created_at AS run_created_at
  FROM monitors m
  LEFT JOIN LATERAL (SELECT * FROM monitor_runs r WHERE r.monitor_id = m.id ORDER BY r.created_at DESC, r.id DESC LIMIT 1) r ON true
  LEFT JOIN jobs j ON j.id = r.job_id
  LEFT JOIN batches b ON b.id = r.batch_id`;

type RowWithRun = MonitorRow & {
  run_id: string | null;
  run_job_id: string | null;
  run_batch_id: string | null;
  run_status: string | null;
  run_delivered: number | null;
  run_skip_reason: string | null;
  run_scheduled_for: Date | null;
  run_created_at: Date | null;
};

export function monitorFromRow(row: MonitorRow): MonitorFacts {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    request: (row.request ?? null) as GenerationRequest | null,
    batch: (row.batch ?? null) as MonitorBatch | null,
    schedule: row.schedule as MonitorSchedule,
    webhookUrl: row.webhook_url,
    maxCreditsPerRun: row.max_credits_per_run,
    enabled: row.enabled,
    pausedReason: row.paused_reason as MonitorPauseReason | null,
    nextRunAt: row.next_run_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function recordFromRow(row: RowWithRun): MonitorRecord {
  return {
    ...monitorFromRow(row),
    lastRun: row.run_id
      ? {
          runId: row.run_id,
          jobId: row.run_job_id,
          batchId: row.run_batch_id,
          status: row.run_status as JobStatus | BatchStatus | null,
          deliveredCount: row.run_delivered,
          skipReason: row.run_skip_reason,
          scheduledFor: row.run_scheduled_for,
          createdAt: row.run_created_at!,
        }
      : null,
  };
}

/** What creating a monitor writes: its facts before it has run or been paused. */
export type NewMonitor = Pick<
  MonitorFacts,
  'id' | 'accountId' | 'name' | 'request' | 'schedule' | 'webhookUrl' | 'maxCreditsPerRun' | 'enabled' | 'nextRunAt'
> & {
  /** a batch monitor's requests (then `request` is null); left out for a monitor of one request */
  batch?: MonitorFacts['batch'];
};

/** Inserts a monitor unless the account has `maxPerAccount` already (counted under the account's row lock, FOR NO KEY UPDATE: two creations cannot both pass, and the account's job creations, which take KEY SHARE, are not behind it). */
export async function insertMonitor(db: Database, monitor: NewMonitor, maxPerAccount: number): Promise<MonitorRecord | 'limit'> {
  return inTransaction(db, async (client) => {
    await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [monitor.accountId]);
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM monitors WHERE account_id = $1 AND deleted_at IS NULL',
      [monitor.accountId],
    );
    if ((rows[0]?.n ?? 0) >= maxPerAccount) return 'limit' as const;
    const inserted = await client.query<MonitorRow>(
      `INSERT INTO monitors AS m (id, account_id, name, request, schedule, webhook_url, max_credits_per_run, enabled, paused_reason, next_run_at, batch)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${MONITOR_COLUMNS}`,
      [
        monitor.id,
        monitor.accountId,
        monitor.name,
        monitor.request === null ? null : JSON.stringify(monitor.request),
        JSON.stringify(monitor.schedule),
        monitor.webhookUrl,
        monitor.maxCreditsPerRun,
        monitor.enabled,
        monitor.enabled ? null : 'owner',
        monitor.nextRunAt,
        monitor.batch ? JSON.stringify(monitor.batch) : null,
      ],
    );
    return { ...monitorFromRow(inserted.rows[0]!), lastRun: null };
  });
}

/** A live monitor of this account (of any account when `accountId` is null), with its newest run; null for another account's or a deleted one. */
export async function findMonitor(db: Database, accountId: string | null, id: string): Promise<MonitorRecord | null> {
  const { rows } = await db.sql.query<RowWithRun>(
    `${WITH_LAST_RUN} WHERE m.id = $1 AND ($2::text IS NULL OR m.account_id = $2) AND m.deleted_at IS NULL`,
    [id, accountId],
  );
  return rows[0] ? recordFromRow(rows[0]) : null;
}

/** Whether the monitor is, or was, this account's: a deleted monitor's runs stay readable. */
export async function monitorEverExisted(db: Database, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.sql.query('SELECT 1 FROM monitors WHERE id = $1 AND account_id = $2', [id, accountId]);
  return (rowCount ?? 0) > 0;
}

/** The account's live monitors, newest first (an account has at most MONITOR_MAX_PER_ACCOUNT). */
export async function listMonitors(db: ReadSide, accountId: string): Promise<MonitorRecord[]> {
  const { rows } = await db.sql.query<RowWithRun>(
    `${WITH_LAST_RUN} WHERE m.account_id = $1 AND m.deleted_at IS NULL ORDER BY m.created_at DESC, m.id DESC`,
    [accountId],
  );
  return rows.map(recordFromRow);
}

/** Every live monitor, or one account's (the admin CLI), newest first. */
export async function listAllMonitors(db: Database, accountId: string | null, limit: number): Promise<MonitorRecord[]> {
  const { rows } = await db.sql.query<RowWithRun>(
    `${WITH_LAST_RUN} WHERE ($1::text IS NULL OR m.account_id = $1) AND m.deleted_at IS NULL ORDER BY m.created_at DESC, m.id DESC LIMIT $2`,
    [accountId, limit],
  );
  return rows.map(recordFromRow);
}

export type MonitorChange = MonitorFieldsChange;

/** What a change did to the schedule: where the alarm was, and where it is now. */
export interface MonitorMove {
  monitor: MonitorRecord;
  previousNextRunAt: Date | null;
}

/**
 * Applies a change under the monitor's row lock (a tick of this monitor waits for it, and then sees the new
 * due time). `decide` gets the monitor as it is and returns the fields to write, so the next run is computed
 * from what is stored: a new schedule or a resume moves it at once, a pause clears it.
 */
export async function changeMonitor(
  db: Database,
  accountId: string | null,
  id: string,
  decide: (current: MonitorFacts) => MonitorChange & { nextRunAt: Date | null; pausedReason: MonitorPauseReason | null; resumed: boolean },
): Promise<MonitorMove | null> {
  const moved = await inTransaction(db, async (client) => {
    const { rows } = await client.query<MonitorRow>(
      `SELECT ${MONITOR_COLUMNS} FROM monitors m WHERE m.id = $1 AND ($2::text IS NULL OR m.account_id = $2) AND m.deleted_at IS NULL FOR UPDATE`,
      [id, accountId],
    );
    if (!rows[0]) return null;
    const current = monitorFromRow(rows[0]);
    const next = decide(current);
    const merged = { ...current, ...next };
    await client.query(
      `UPDATE monitors SET name = $2, request = $3, schedule = $4, webhook_url = $5, max_credits_per_run = $6, enabled = $7,
         paused_reason = $8, next_run_at = $9, failures_since = CASE WHEN $10 THEN now() ELSE failures_since END, batch = $11, updated_at = now()
       WHERE id = $1`,
      [
        id,
        merged.name,
        merged.request === null ? null : JSON.stringify(merged.request),
        JSON.stringify(merged.schedule),
        merged.webhookUrl,
        merged.maxCreditsPerRun,
        merged.enabled,
        next.pausedReason,
        next.nextRunAt,
        next.resumed,
        merged.batch === null ? null : JSON.stringify(merged.batch),
      ],
    );
    return { previousNextRunAt: current.nextRunAt };
  });
  if (!moved) return null;
  const monitor = await findMonitor(db, accountId, id);
  return monitor ? { monitor, previousNextRunAt: moved.previousNextRunAt } : null;
}

/** Marks the monitor deleted (its runs stay readable); returns the due time its alarm was set for, or null when there was no such monitor. */
export async function deleteMonitor(db: Database, accountId: string, id: string): Promise<{ previousNextRunAt: Date | null } | null> {
  const { rows } = await db.sql.query<{ next_run_at: Date | null }>(
    `UPDATE monitors m SET deleted_at = now(), enabled = false, next_run_at = NULL, updated_at = now()
     FROM (SELECT id, next_run_at FROM monitors WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL FOR UPDATE) old
     WHERE m.id = old.id RETURNING old.next_run_at`,
    [id, accountId],
  );
  return rows[0] ? { previousNextRunAt: rows[0].next_run_at } : null;
}

/** Live, enabled monitors due before `before`, soonest first: the alarms the periodic sweep makes sure of. */
export async function monitorsDueBefore(db: Database, before: Date, limit: number): Promise<Array<{ id: string; nextRunAt: Date }>> {
  const { rows } = await db.sql.query<{ id: string; next_run_at: Date }>(
    `SELECT id, next_run_at FROM monitors WHERE enabled AND deleted_at IS NULL AND next_run_at <= $1 ORDER BY next_run_at LIMIT $2`,
    [before, limit],
  );
  return rows.map((row) => ({ id: row.id, nextRunAt: row.next_run_at }));
}

/** How many live, enabled monitors are due now (their tick has not run yet): the monitors-due gauge. */
export async function countMonitorsDue(db: Database, now: Date): Promise<number> {
  const { rows } = await db.sql.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM monitors WHERE enabled AND deleted_at IS NULL AND next_run_at <= $1',
    [now],
  );
  return rows[0]?.n ?? 0;
}

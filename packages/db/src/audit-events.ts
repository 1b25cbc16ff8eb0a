import { newId } from '@leadgen/domain';
import { sqlOf, type Database, type Queryable } from './client';
import { dropWeeksPast } from './partitions';
import type { ReadSide } from './read-replica';

// The audit trail (decision 019): cold paths, one statement each. A summary holds ids, counts and
// selections, never personal data nor secrets, so erasing a person never has to rewrite it.

/** What the trail records (docs/data-protection.md says when each is written). */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.revoked',
  'key.changed',
  'webhook_endpoint.created',
  'webhook_endpoint.changed',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_default_secret.rotated',
  'suppressions.changed',
  'leads.exported',
  'monitor.created',
  'monitor.changed',
  'monitor.paused',
  'monitor.resumed',
  'monitor.deleted',
  'monitor.run_requested',
  'subject.erased',
  'subject.objected',
  'objection.confirmed',
  'objection.applied',
  'account.deleted',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who did it: an API key (with the request) or the operator's CLI. */
export interface AuditActor {
  actor: string;
  requestId: string | null;
}

export const OPERATOR: AuditActor = { actor: 'operator', requestId: null };

export interface AuditEventRecord {
  id: string;
  accountId: string | null;
  actor: string;
  action: AuditAction;
  requestId: string | null;
  summary: Record<string, unknown>;
  createdAt: Date;
}

export async function recordAuditEvent(
  db: Database | Queryable,
  event: { accountId: string | null; action: AuditAction; summary: Record<string, unknown> } & AuditActor,
): Promise<void> {
  await sqlOf(db).query(
    'INSERT INTO audit_events (id, account_id, actor, action, request_id, summary) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
    [newId.auditEvent(), event.accountId, event.actor, event.action, event.requestId, JSON.stringify(event.summary)],
  );
}

export interface AuditKeyset {
  createdAt: Date;
  id: string;
}

interface AuditRow {
  id: string;
  account_id: string | null;
  actor: string;
  action: AuditAction;
  request_id: string | null;
  summary: Record<string, unknown>;
  created_at: Date;
}

const fromRow = (r: AuditRow): AuditEventRecord => ({
  id: r.id,
  accountId: r.account_id,
  actor: r.actor,
  action: r.action,
  requestId: r.request_id,
  summary: r.summary,
  createdAt: r.created_at,
});

// Newest first on (created_at DESC, id DESC), as the job listing pages (job-listing.ts): the index
// (account_id, created_at) is walked backwards from the keyset's time. `$1` null: every account's
// events (the operator's audit:show without --account).
const LIST = `
SELECT id, account_id, actor, action, request_id, summary, created_at FROM audit_events
WHERE ($1::text IS NULL OR account_id = $1)
  AND ($2::text IS NULL OR action = $2)
  AND ($3::timestamptz IS NULL OR (created_at <= $3 AND (created_at, id) < ($3, $4::text)))
ORDER BY created_at DESC, id DESC
LIMIT $5`;

/** Up to `limit` events (of one account, or of all when null) after `after`, newest first. */
export async function listAuditEvents(
  db: ReadSide,
  accountId: string | null,
  filter: { action: string | null },
  after: AuditKeyset | null,
  limit: number,
): Promise<AuditEventRecord[]> {
  const { rows } = await db.sql.query<AuditRow>(LIST, [accountId, filter.action, after?.createdAt ?? null, after?.id ?? null, limit]);
  return rows.map(fromRow);
}

/** What one purge of the audit trail removed. */
export interface AuditPurgeReport {
  /** events deleted row by row (the week at the window's edge) */
  events: number;
  /** the weekly partitions dropped whole, every event in them past the retention (decision 053) */
  partitions: string[];
  /** a partition due could not be dropped this run: a long transaction held audit_events past the lock timeout */
  lockTimedOut: boolean;
}

/**
 * Purges the events older than `days` (AUDIT_RETENTION_DAYS): first each weekly partition all of whose events are
 * past it, dropped whole (drop_partition_past.sql: the disk is freed at once), then the rest row by row in batches of
 * `batch` (the week at the window's edge), so no event is kept past the retention by more than the hour between
 * runs. `now` is for tests: the time the window ends at.
 */
export async function purgeAuditEvents(
  db: Database,
  days: number,
  options: { batch?: number; now?: Date } = {},
): Promise<AuditPurgeReport> {
  const batch = options.batch ?? 5_000;
  const now = options.now ?? null;
  const report: AuditPurgeReport = { events: 0, ...(await dropWeeksPast(db, 'audit_events', days, now)) };
  for (;;) {
    const client = await db.sql.connect();
    let deleted: number;
    try {
      await client.query('BEGIN');
      // The append-only trigger lets this transaction's deletes through, and no other's.
      await client.query("SET LOCAL leadgen.audit_purge = 'on'");
      const result = await client.query(
        `DELETE FROM audit_events WHERE id IN (
           SELECT id FROM audit_events WHERE created_at < COALESCE($3::timestamptz, now()) - make_interval(days => $1) LIMIT $2)`,
        [days, batch, now],
      );
      await client.query('COMMIT');
      deleted = result.rowCount ?? 0;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    report.events += deleted;
    if (deleted < batch) return report;
  }
}

import type { WebhookEventType } from '@leadgen/domain';
import type { Database } from './client';
import type { AttemptResult } from './webhook-attempts';
import type { ReadSide } from './read-replica';

// Webhook deliveries as the account sees them (decision 016): listed with their attempts, looked up, sent again
// by hand, and the pings it asks for. Deliveries of job events are written by settle_job itself (the outbox).

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** An attempt as kept and listed: what it found, numbered within its delivery. */
export interface WebhookAttemptRecord extends AttemptResult {
  attempt: number;
}

export interface WebhookDeliveryRecord {
  id: string;
  endpointId: string | null;
  jobId: string | null;
  eventType: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: WebhookAttemptRecord[];
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string | null;
  job_id: string | null;
  event_type: WebhookEventType;
  status: WebhookDeliveryStatus;
  next_attempt_at: Date;
  delivered_at: Date | null;
  created_at: Date;
  attempt_log: Array<{
    attempt: number;
    url: string;
    started_at: string;
    response_status: number | null;
    latency_ms: number;
    response_excerpt: string | null;
    error: string | null;
    succeeded: boolean;
  }>;
}

function deliveryFromRow(row: DeliveryRow): WebhookDeliveryRecord {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    jobId: row.job_id,
    eventType: row.event_type,
    status: row.status,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    deliveredAt: row.delivered_at,
    createdAt: row.created_at,
    attempts: row.attempt_log.map((a) => ({
      attempt: a.attempt,
      url: a.url,
      startedAt: new Date(a.started_at),
      responseStatus: a.response_status,
      latencyMs: a.latency_ms,
      responseExcerpt: a.response_excerpt,
      error: a.error,
      succeeded: a.succeeded,
    })),
  };
}

// A delivery's attempts are in the partition of its week (decision 053): delivery_created_at prunes the others. An
// attempt the release before wrote during the move to partitions carries -infinity (its delivery is in the legacy
// partition, as it is).
const DELIVERY_COLUMNS = `d.id, d.endpoint_id, d.job_id, d.event_type, d.status::text AS status, d.next_attempt_at, d.delivered_at, d.created_at,
  COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'url', a.url, 'started_at', a.started_at, 'response_status', a.response_status,
    'latency_ms', a.latency_ms, 'response_excerpt', a.response_excerpt, 'error', a.error, 'succeeded', a.succeeded) ORDER BY a.attempt)
    FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.delivery_created_at IN (d.created_at, '-infinity')), '[]') AS attempt_log`;

/** A `ping` to one endpoint of the account; null when the account has no such endpoint. */
export async function createPingDelivery(db: Database, accountId: string, endpointId: string): Promise<string | null> {
  const { rows } = await db.sql.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (account_id, endpoint_id, event_type)
     SELECT account_id, id, 'ping' FROM webhook_endpoints WHERE id = $1 AND account_id = $2 RETURNING id`,
    [endpointId, accountId],
  );
  return rows[0]?.id ?? null;
}

export interface DeliveryKeyset {
  createdAt: Date;
  id: string;
}

/** An endpoint's deliveries, newest first (keyset on created_at, id), each with its attempts. */
export async function listWebhookDeliveries(
  db: ReadSide,
  endpointId: string,
  options: { limit: number; after?: DeliveryKeyset; status?: WebhookDeliveryStatus },
): Promise<WebhookDeliveryRecord[]> {
  const { rows } = await db.sql.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
     WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.status::text = $2)
       AND ($3::timestamptz IS NULL OR (d.created_at <= $3 AND (d.created_at, d.id) < ($3, $4::text)))
     ORDER BY d.created_at DESC, d.id DESC LIMIT $5`,
    [endpointId, options.status ?? null, options.after?.createdAt ?? null, options.after?.id ?? null, options.limit],
  );
  return rows.map(deliveryFromRow);
}

/** Where a delivery is looked for: an endpoint's, or a job's of an account (its endpoints' and its own URL's). */
export type DeliveryScope = { endpointId: string } | { jobId: string; accountId: string };

function scopeFilter(scope: DeliveryScope, first: number): { sql: string; params: string[] } {
  return 'endpointId' in scope
    ? { sql: `d.endpoint_id = $${first}`, params: [scope.endpointId] }
    : { sql: `d.job_id = $${first} AND d.account_id = $${first + 1}`, params: [scope.jobId, scope.accountId] };
}

export async function findWebhookDelivery(db: Database, scope: DeliveryScope, id: string): Promise<WebhookDeliveryRecord | null> {
  const filter = scopeFilter(scope, 2);
  const { rows } = await db.sql.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.id = $1 AND ${filter.sql}`,
    [id, ...filter.params],
  );
  return rows[0] ? deliveryFromRow(rows[0]) : null;
}

/** Every delivery of a job of this account (one per target: at most 11), oldest first. */
export async function listJobWebhookDeliveries(db: ReadSide, accountId: string, jobId: string): Promise<WebhookDeliveryRecord[]> {
  const { rows } = await db.sql.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.job_id = $1 AND d.account_id = $2 ORDER BY d.created_at, d.id`,
    [jobId, accountId],
  );
  return rows.map(deliveryFromRow);
}

export type RetryOutcome = { kind: 'retried'; delivery: WebhookDeliveryRecord } | { kind: 'pending' } | { kind: 'not_found' };

/**
 * A delivery that succeeded or failed is made pending again, with a new round of the retry schedule
 * and the same message id (the same `webhook-id`: receivers deduplicate on it).
 */
export async function retryWebhookDelivery(db: Database, scope: DeliveryScope, id: string): Promise<RetryOutcome> {
  const filter = scopeFilter(scope, 2);
  const { rowCount } = await db.sql.query(
    `UPDATE webhook_deliveries d SET status = 'pending', round_attempts = 0, next_attempt_at = now(), delivered_at = NULL, updated_at = now()
     WHERE d.id = $1 AND ${filter.sql} AND d.status <> 'pending'`,
    [id, ...filter.params],
  );
  const delivery = await findWebhookDelivery(db, scope, id);
  if (!delivery) return { kind: 'not_found' };
  return (rowCount ?? 0) > 0 ? { kind: 'retried', delivery } : { kind: 'pending' };
}

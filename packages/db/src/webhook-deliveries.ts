import type { WebhookEventType } from '@leadgen/domain';
import type { Database } from './client';
import { findJob, type JobRecord } from './job-repository';

// Webhook deliveries and their attempts (decision 016). Deliveries of job events are written by
// settle_job itself (the outbox); these are the statements around them.

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

const DELIVERY_COLUMNS = `d.id, d.endpoint_id, d.job_id, d.event_type, d.status::text AS status, d.next_attempt_at, d.delivered_at, d.created_at,
  COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'url', a.url, 'started_at', a.started_at, 'response_status', a.response_status,
    'latency_ms', a.latency_ms, 'response_excerpt', a.response_excerpt, 'error', a.error, 'succeeded', a.succeeded) ORDER BY a.attempt)
    FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]') AS attempt_log`;

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
  db: Database,
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
  const { rows } = await db.sql.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.id = $1 AND ${filter.sql}`, [id, ...filter.params]);
  return rows[0] ? deliveryFromRow(rows[0]) : null;
}

/** Every delivery of a job of this account (one per target: at most 11), oldest first. */
export async function listJobWebhookDeliveries(db: Database, accountId: string, jobId: string): Promise<WebhookDeliveryRecord[]> {
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

/** What an attempt needs: the target, the secrets that sign it, where the round stands, the job. */
export interface DeliveryForAttempt {
  id: string;
  accountId: string;
  endpointId: string | null;
  eventType: WebhookEventType;
  status: WebhookDeliveryStatus;
  url: string;
  /** the current secret first, then the previous one while it has not expired */
  secrets: string[];
  roundAttempts: number;
  attempts: number;
  createdAt: Date;
  endpointDisabled: boolean;
  endpointFailingSince: Date | null;
  job: JobRecord | null;
}

export async function loadDeliveryForAttempt(db: Database, id: string): Promise<DeliveryForAttempt | null> {
  const { rows } = await db.sql.query<{
    id: string;
    account_id: string;
    endpoint_id: string | null;
    event_type: WebhookEventType;
    status: WebhookDeliveryStatus;
    url: string | null;
    secret: string | null;
    previous_secret: string | null;
    round_attempts: number;
    attempts: number;
    created_at: Date;
    disabled: boolean;
    failing_since: Date | null;
    job_id: string | null;
  }>(
    `SELECT d.id, d.account_id, d.endpoint_id, d.event_type, d.status::text AS status, COALESCE(e.url, d.url) AS url,
       COALESCE(e.secret, s.secret) AS secret,
       CASE WHEN COALESCE(e.previous_secret_expires_at, s.previous_secret_expires_at) > now() THEN COALESCE(e.previous_secret, s.previous_secret) END AS previous_secret,
       d.round_attempts, d.attempts, d.created_at, e.disabled_at IS NOT NULL AS disabled, e.failing_since, d.job_id
     FROM webhook_deliveries d
     LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
     LEFT JOIN account_webhook_secrets s ON d.endpoint_id IS NULL AND s.account_id = d.account_id
     WHERE d.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row || row.url === null || row.secret === null) return null;
  return {
    id: row.id,
    accountId: row.account_id,
    endpointId: row.endpoint_id,
    eventType: row.event_type,
    status: row.status,
    url: row.url,
    secrets: [row.secret, ...(row.previous_secret ? [row.previous_secret] : [])],
    roundAttempts: row.round_attempts,
    attempts: row.attempts,
    createdAt: row.created_at,
    endpointDisabled: row.disabled,
    endpointFailingSince: row.failing_since,
    job: row.job_id ? await findJob(db, row.job_id) : null,
  };
}

/** What one attempt found. */
export interface AttemptResult {
  url: string;
  startedAt: Date;
  responseStatus: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  succeeded: boolean;
}

export interface AttemptDecision {
  /** the delivery's status after this attempt */
  status: WebhookDeliveryStatus;
  /** when the next attempt is due (pending only) */
  nextAttemptAt: Date | null;
  /** disable the delivery's endpoint, for this reason (gone, failing) */
  disableEndpoint: string | null;
}

/**
 * One statement: the attempt kept, the delivery moved on (only while pending: a delivery finished
 * meanwhile is left alone), and its endpoint's failure streak ended, begun or turned into a
 * disablement. False when the delivery was no longer pending.
 */
export async function recordWebhookAttempt(db: Database, deliveryId: string, result: AttemptResult, decision: AttemptDecision): Promise<boolean> {
  const { rows } = await db.sql.query<{ recorded: number }>(
    `WITH d AS (
       UPDATE webhook_deliveries SET attempts = attempts + 1, round_attempts = round_attempts + 1, status = $2::"WebhookDeliveryStatus",
         next_attempt_at = COALESCE($3, next_attempt_at), delivered_at = CASE WHEN $9 THEN now() END, updated_at = now()
       WHERE id = $1 AND status = 'pending'
       RETURNING id, attempts, endpoint_id
     ), a AS (
       INSERT INTO webhook_attempts (delivery_id, attempt, url, started_at, response_status, latency_ms, response_excerpt, error, succeeded)
       SELECT d.id, d.attempts, $4, $5, $6, $7, $8, $10, $9 FROM d
     ), e AS (
       UPDATE webhook_endpoints SET
         failing_since = CASE WHEN $9 THEN NULL ELSE COALESCE(failing_since, $5) END,
         disabled_at = CASE WHEN $11::text IS NOT NULL AND disabled_at IS NULL THEN now() ELSE disabled_at END,
         disabled_reason = CASE WHEN $11::text IS NOT NULL AND disabled_at IS NULL THEN $11 ELSE disabled_reason END,
         updated_at = now()
       FROM d WHERE webhook_endpoints.id = d.endpoint_id
     )
     SELECT count(*)::int AS recorded FROM d`,
    [
      deliveryId,
      decision.status,
      decision.nextAttemptAt,
      result.url,
      result.startedAt,
      result.responseStatus,
      result.latencyMs,
      result.responseExcerpt,
      result.succeeded,
      result.error,
      decision.disableEndpoint,
    ],
  );
  return (rows[0]?.recorded ?? 0) > 0;
}

/** A delivery that can no longer be attempted (its endpoint disabled or gone) ends failed, with no attempt. */
export async function abandonWebhookDelivery(db: Database, deliveryId: string): Promise<void> {
  await db.sql.query(`UPDATE webhook_deliveries SET status = 'failed', updated_at = now() WHERE id = $1 AND status = 'pending'`, [deliveryId]);
}

/** Pending deliveries (of one account, or of all) whose next attempt was due before `dueBefore`: candidates for the outbox sweep. */
export async function overdueWebhookDeliveries(
  db: Database,
  dueBefore: Date,
  limit: number,
  accountId: string | null = null,
): Promise<Array<{ id: string; nextAttemptAt: Date }>> {
  const { rows } = await db.sql.query<{ id: string; next_attempt_at: Date }>(
    `SELECT id, next_attempt_at FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at < $1 AND ($3::text IS NULL OR account_id = $3)
     ORDER BY next_attempt_at LIMIT $2`,
    [dueBefore, limit, accountId],
  );
  return rows.map((row) => ({ id: row.id, nextAttemptAt: row.next_attempt_at }));
}

/** Which of these deliveries are still pending (read again after their queue was asked). */
export async function pendingWebhookDeliveries(db: Database, ids: string[]): Promise<Array<{ id: string; nextAttemptAt: Date }>> {
  const { rows } = await db.sql.query<{ id: string; next_attempt_at: Date }>(
    `SELECT id, next_attempt_at FROM webhook_deliveries WHERE id = ANY($1) AND status = 'pending'`,
    [ids],
  );
  return rows.map((row) => ({ id: row.id, nextAttemptAt: row.next_attempt_at }));
}

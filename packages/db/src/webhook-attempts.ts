import type { WebhookEventType } from '@leadgen/domain';
import type { Database } from './client';
import { secretContext } from './secret-box';
import { findJob, type JobRecord } from './jobs';
import { findBatch, type BatchRecord } from './batches';
import type { WebhookDeliveryStatus } from './webhook-delivery-listing';

// The attempt engine's statements (decision 016): what an attempt needs, what it found, and the decision it
// led to, kept in one statement each.

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
  /** an event without a job (monitor.paused): its data as recorded when it happened */
  eventData: Record<string, unknown> | null;
  /** a batch event's batch (decision 021) */
  batch: BatchRecord | null;
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
    event_data: Record<string, unknown> | null;
    batch_id: string | null;
  }>(
    `SELECT d.id, d.account_id, d.endpoint_id, d.event_type, d.status::text AS status, COALESCE(e.url, d.url) AS url,
       COALESCE(e.secret, s.secret) AS secret,
       CASE WHEN COALESCE(e.previous_secret_expires_at, s.previous_secret_expires_at) > now() THEN COALESCE(e.previous_secret, s.previous_secret) END AS previous_secret,
       d.round_attempts, d.attempts, d.created_at, e.disabled_at IS NOT NULL AS disabled, e.failing_since, d.job_id, d.event_data,
       d.batch_id
     FROM webhook_deliveries d
     LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
     LEFT JOIN account_webhook_secrets s ON d.endpoint_id IS NULL AND s.account_id = d.account_id
     WHERE d.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row || row.url === null || row.secret === null) return null;
  const context = row.endpoint_id ? secretContext.endpoint(row.endpoint_id) : secretContext.accountDefault(row.account_id);
  return {
    id: row.id,
    accountId: row.account_id,
    endpointId: row.endpoint_id,
    eventType: row.event_type,
    status: row.status,
    url: row.url,
    secrets: [row.secret, ...(row.previous_secret ? [row.previous_secret] : [])].map((sealed) => db.secrets.open(sealed, context)),
    roundAttempts: row.round_attempts,
    attempts: row.attempts,
    createdAt: row.created_at,
    endpointDisabled: row.disabled,
    endpointFailingSince: row.failing_since,
    job: row.job_id ? await findJob(db, row.job_id) : null,
    eventData: row.event_data,
    batch: row.batch_id ? await findBatch(db, row.batch_id, null) : null,
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
export async function recordWebhookAttempt(
  db: Database,
  deliveryId: string,
  result: AttemptResult,
  decision: AttemptDecision,
): Promise<boolean> {
  const { rows } = await db.sql.query<{ recorded: number }>(
    `WITH d AS (
       UPDATE webhook_deliveries SET attempts = attempts + 1, round_attempts = round_attempts + 1, status = $2::"WebhookDeliveryStatus",
         next_attempt_at = COALESCE($3, next_attempt_at), delivered_at = CASE WHEN $9 THEN now() END, updated_at = now()
       WHERE id = $1 AND status = 'pending'
       RETURNING id, attempts, endpoint_id, created_at
     ), a AS (
       -- delivery_created_at: the attempts are partitioned by their delivery's week (decision 053)
       INSERT INTO webhook_attempts (delivery_id, delivery_created_at, attempt, url, started_at, response_status, latency_ms, response_excerpt, error, succeeded)
       SELECT d.id, d.created_at, d.attempts, $4, $5, $6, $7, $8, $10, $9 FROM d
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
  await db.sql.query(`UPDATE webhook_deliveries SET status = 'failed', updated_at = now() WHERE id = $1 AND status = 'pending'`, [
    deliveryId,
  ]);
}

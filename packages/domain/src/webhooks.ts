import { randomBytes } from 'node:crypto';
import { AppError } from './errors';
import type { TerminalStatus } from './job-status';
import type { SUBJECT_OBJECTED_EVENT } from './objections';

// Webhooks (docs/decisions/016-webhooks.md): the events, the secrets and the rules of a target URL.

/** One event per terminal status, the name the SQL outbox writes too (record_job_event). */
export const JOB_EVENT_OF: { readonly [S in TerminalStatus]: string } = {
  COMPLETE: 'job.completed',
  PARTIAL: 'job.partial',
  EMPTY: 'job.empty',
  FAILED: 'job.failed',
  CANCELLED: 'job.cancelled',
};
export const JOB_EVENT_TYPES = ['job.completed', 'job.partial', 'job.empty', 'job.failed', 'job.cancelled'] as const;
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];
/** A batch's terminal event, one per terminal status; the SQL outbox writes the same names (settle_batch_child). */
export const BATCH_EVENT_OF: { readonly [S in TerminalStatus]: string } = {
  COMPLETE: 'batch.completed',
  PARTIAL: 'batch.partial',
  EMPTY: 'batch.empty',
  FAILED: 'batch.failed',
  CANCELLED: 'batch.cancelled',
};
export const BATCH_EVENT_TYPES = ['batch.completed', 'batch.partial', 'batch.empty', 'batch.failed', 'batch.cancelled'] as const;
export type BatchEventType = (typeof BATCH_EVENT_TYPES)[number];
export const PING_EVENT = 'ping';
/** Sent when the service pauses a monitor (decision 022); its data is the monitor and the reason. */
export const MONITOR_PAUSED_EVENT = 'monitor.paused';
/** What an endpoint may subscribe to: the job events, the batch events and monitor.paused. */
export const SUBSCRIBABLE_EVENTS = [...JOB_EVENT_TYPES, ...BATCH_EVENT_TYPES, MONITOR_PAUSED_EVENT] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];
/** subject.objected is sent to every enabled endpoint whatever it subscribes to: a legal notice (decision 042). */
export type WebhookEventType = SubscribableEvent | typeof PING_EVENT | typeof SUBJECT_OBJECTED_EVENT;

export const MAX_WEBHOOK_ENDPOINTS = 10;
/** Pings one endpoint takes per minute: each can cost up to 8 outbound attempts, so 5 a minute bound a ping loop to 40. */
export const PINGS_PER_ENDPOINT_PER_MIN = 5;
/** After a rotation, deliveries are signed with the old secret too, for this long. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 3600_000;

/** Standard Webhooks secrets: `whsec_` and base64 of 24..64 random bytes; ours are 32. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export const newWebhookEndpointId = (): string => `whep_${randomBytes(12).toString('hex')}`;

export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** Whether a target URL's form is acceptable: http(s), no credentials, https unless plain http is allowed. */
export function webhookUrlProblem(raw: string, options: { allowHttp: boolean }): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (url.protocol === 'http:' && !options.allowHttp) return 'must be an https URL (plain http is accepted only in development)';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  return null;
}

export const webhookErrors = {
  endpointNotFound: () =>
    new AppError(
      404,
      'webhook_endpoint_not_found',
      'Webhook endpoint not found',
      'No webhook endpoint with this id exists for your account',
    ),
  deliveryNotFound: () =>
    new AppError(404, 'webhook_delivery_not_found', 'Webhook delivery not found', 'No delivery with this id exists for this endpoint'),
  endpointLimit: () =>
    new AppError(
      409,
      'webhook_endpoint_limit',
      'Too many webhook endpoints',
      `An account has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first`,
    ),
  endpointDisabled: () =>
    new AppError(
      409,
      'webhook_endpoint_disabled',
      'Webhook endpoint disabled',
      'The endpoint is disabled; enable it with PATCH { "enabled": true } first',
    ),
  deliveryPending: () =>
    new AppError(
      409,
      'webhook_delivery_pending',
      'Delivery still pending',
      'The delivery is still being attempted; it can be retried once it has succeeded or failed',
    ),
  secretAlreadyRevealed: () =>
    new AppError(
      409,
      'webhook_secret_already_revealed',
      'Secret already shown',
      'The default webhook secret is shown once; POST /api/v1/webhooks/default-secret/rotate makes a new one',
    ),
};

import {
  BATCH_EVENT_OF,
  batchBody,
  batchPath,
  type BatchBody,
  type BatchFacts,
  JOB_EVENT_OF,
  MONITOR_PAUSED_EVENT,
  SUBJECT_OBJECTED_EVENT,
  isTerminal,
  jobPath,
  jobSummary,
  PING_EVENT,
  type JobFacts,
  type JobSummary,
  type WebhookEventType,
} from '@leadgen/domain';
import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks envelope: `type`, the event's `timestamp`, and `data`. */
export interface WebhookEnvelope {
  type: WebhookEventType;
  timestamp: string;
  data: (JobSummary & { leadsUrl: string }) | (BatchBody & { leadsUrl: string }) | { endpointId: string } | Record<string, unknown>;
}

/**
 * A delivery's body. A job event's data is the job body without `leads` (what GET answers, minus
 * the leads) and where to read them; its timestamp is the terminal status's. Built from the
 * terminal row, which never changes, so every attempt sends the same bytes.
 */
export function webhookEnvelope(
  delivery: {
    eventType: WebhookEventType;
    endpointId: string | null;
    createdAt: Date;
    job: JobFacts | null;
    batch?: BatchFacts | null;
    eventData?: Record<string, unknown> | null;
  },
  publicBaseUrl: string | null,
): WebhookEnvelope | null {
  // An event without a job: its data was recorded when it happened (the monitor and the reason), so every attempt sends the same bytes.
  if (delivery.eventType === MONITOR_PAUSED_EVENT) {
    const data = delivery.eventData;
    if (!data) return null;
    return { type: MONITOR_PAUSED_EVENT, timestamp: String(data.pausedAt ?? delivery.createdAt.toISOString()), data };
  }
  // A person objected (decision 042): the account's notice, recorded when the objection was applied.
  if (delivery.eventType === SUBJECT_OBJECTED_EVENT) {
    const data = delivery.eventData;
    if (!data) return null;
    return { type: SUBJECT_OBJECTED_EVENT, timestamp: String(data.objectedAt ?? delivery.createdAt.toISOString()), data };
  }
  // A batch's event: the batch body (terminal: it never changes) and where its leads are (decision 021).
  const batch = delivery.batch;
  if (batch) {
    if (batch.status === 'running' || BATCH_EVENT_OF[batch.status] !== delivery.eventType) return null;
    return {
      type: delivery.eventType,
      timestamp: (batch.finishedAt ?? delivery.createdAt).toISOString(),
      data: { ...batchBody(batch, publicBaseUrl), leadsUrl: `${publicBaseUrl ?? ''}${batchPath(batch.id)}/leads` },
    };
  }
  if (delivery.eventType === PING_EVENT) {
    return delivery.endpointId
      ? { type: PING_EVENT, timestamp: delivery.createdAt.toISOString(), data: { endpointId: delivery.endpointId } }
      : null;
  }
  const job = delivery.job;
  if (!job || !isTerminal(job.status) || JOB_EVENT_OF[job.status] !== delivery.eventType) return null;
  return {
    type: delivery.eventType,
    timestamp: (job.finishedAt ?? delivery.createdAt).toISOString(),
    data: { ...jobSummary(job, publicBaseUrl), leadsUrl: `${publicBaseUrl ?? ''}${jobPath(job.id)}/leads` },
  };
}

/**
 * The Standard Webhooks headers of one attempt. With a secret rotated less than a day ago, the
 * signature header carries a `v1,` signature per secret, space-separated (the specification allows
 * several), so a receiver still verifying with the old secret accepts the message.
 */
export function signatureHeaders(messageId: string, body: string, secrets: readonly string[], at: Date): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' '),
  };
}

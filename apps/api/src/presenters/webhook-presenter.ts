import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '@leadgen/db';

/** A webhook endpoint as the API answers it; never its secret (shown only by its creation and rotations). */
export function endpointBody(endpoint: WebhookEndpointRecord) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    enabled: endpoint.disabledAt === null,
    disabledAt: endpoint.disabledAt?.toISOString() ?? null,
    /** disabled_by_owner, gone (it answered 410 Gone), failing (it failed every attempt for 3 days) */
    disabledReason: endpoint.disabledReason,
    failingSince: endpoint.failingSince?.toISOString() ?? null,
    /** until then, deliveries also carry a signature made with the secret before the last rotation */
    previousSecretExpiresAt: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

export function deliveryBody(delivery: WebhookDeliveryRecord) {
  return {
    id: delivery.id,
    eventType: delivery.eventType,
    /** null: the job's own webhookUrl */
    endpointId: delivery.endpointId,
    jobId: delivery.jobId,
    status: delivery.status,
    createdAt: delivery.createdAt.toISOString(),
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    attempts: delivery.attempts.map((a) => ({
      attempt: a.attempt,
      url: a.url,
      startedAt: a.startedAt.toISOString(),
      responseStatus: a.responseStatus,
      latencyMs: a.latencyMs,
      responseExcerpt: a.responseExcerpt,
      error: a.error,
      succeeded: a.succeeded,
    })),
  };
}

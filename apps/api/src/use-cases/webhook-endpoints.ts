import {
  findAccountJob,
  listJobWebhookDeliveries,
  createPingDelivery,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  findWebhookDelivery,
  findWebhookEndpoint,
  listWebhookDeliveries,
  retryWebhookDelivery,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
  type DeliveryScope,
  type WebhookDeliveryRecord,
  type WebhookDeliveryStatus,
  type WebhookEndpointRecord,
} from '@leadgen/db';
import { PINGS_PER_ENDPOINT_PER_MIN, errors, newWebhookSecret, webhookErrors, type SubscribableEvent } from '@leadgen/domain';
import { admitToWindow } from '@leadgen/rate-limits';
import { logger } from '@leadgen/logger';
import type { ApiDependencies } from '../dependencies';
import { checkWebhookTarget } from './webhook-target-check';

// The webhook endpoints of an account (decision 016). Another account's endpoint is answered as
// one that does not exist.

async function ownEndpoint(deps: ApiDependencies, accountId: string, id: string): Promise<WebhookEndpointRecord> {
  const endpoint = await findWebhookEndpoint(deps.db, accountId, id);
  if (!endpoint) throw webhookErrors.endpointNotFound();
  return endpoint;
}

/** Creates an endpoint with a new secret, shown in this answer only. */
export async function createEndpoint(
  deps: ApiDependencies,
  accountId: string,
  input: { url: string; events: SubscribableEvent[]; description: string | null },
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  await checkWebhookTarget(deps, input.url, '#/url');
  const secret = newWebhookSecret();
  const endpoint = await createWebhookEndpoint(deps.db, accountId, { ...input, secret });
  if (!endpoint) throw webhookErrors.endpointLimit();
  logger.info('webhook endpoint created', { endpointId: endpoint.id, events: input.events });
  return { endpoint, secret };
}

export const getEndpoint = ownEndpoint;

export async function updateEndpoint(
  deps: ApiDependencies,
  accountId: string,
  id: string,
  change: { url?: string; events?: SubscribableEvent[]; description?: string | null; enabled?: boolean },
): Promise<WebhookEndpointRecord> {
  await ownEndpoint(deps, accountId, id);
  if (change.url !== undefined) await checkWebhookTarget(deps, change.url, '#/url');
  const endpoint = await updateWebhookEndpoint(deps.db, accountId, id, change);
  if (!endpoint) throw webhookErrors.endpointNotFound();
  return endpoint;
}

export async function deleteEndpoint(deps: ApiDependencies, accountId: string, id: string): Promise<void> {
  if (!(await deleteWebhookEndpoint(deps.db, accountId, id))) throw webhookErrors.endpointNotFound();
}

/** A new secret, shown now; the old one keeps signing (a second signature) for 24 hours. */
export async function rotateEndpointSecret(
  deps: ApiDependencies,
  accountId: string,
  id: string,
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const secret = newWebhookSecret();
  const endpoint = await rotateWebhookEndpointSecret(deps.db, accountId, id, secret);
  if (!endpoint) throw webhookErrors.endpointNotFound();
  return { endpoint, secret };
}

/** Enqueues a delivery now; if Redis refuses, the outbox sweep enqueues it (the delivery is recorded already). */
async function enqueueNow(deps: ApiDependencies, accountId: string, delivery: WebhookDeliveryRecord): Promise<void> {
  await deps.webhooks
    .enqueue([delivery.id], 0, accountId)
    .catch((error: Error) => logger.warn('webhook delivery not enqueued', { deliveryId: delivery.id, error: error.message }));
}

const PING_WINDOW_SECONDS = 60;

/**
 * At most PINGS_PER_ENDPOINT_PER_MIN pings per endpoint and minute, counted in Redis for every API
 * process (a refused ping is not counted): a ping loop cannot turn one call into a stream of outbound
 * POSTs and delivery rows. Without Redis the ping goes on, as the rate limit lets calls through.
 */
async function admitPing(deps: ApiDependencies, accountId: string, endpointId: string): Promise<void> {
  const windowStart = Math.floor(Date.now() / 1000 / PING_WINDOW_SECONDS);
  const key = deps.producer.keys.account(accountId).pingWindow(endpointId, windowStart);
  const admission = await admitToWindow(deps.redis, key, PINGS_PER_ENDPOINT_PER_MIN, PING_WINDOW_SECONDS + 1).catch((error: Error) => {
    logger.warn('ping limit not checked: redis unavailable', { error: error.message });
    return null;
  });
  if (admission && !admission.admitted) {
    const retryAfter = Math.max(1, Math.min(PING_WINDOW_SECONDS, admission.ttlSeconds));
    throw errors.rateLimited(retryAfter, `At most ${PINGS_PER_ENDPOINT_PER_MIN} pings per endpoint per minute; retry in ${retryAfter} s`);
  }
}

/** Sends a `ping` to an enabled endpoint. */
export async function pingEndpoint(deps: ApiDependencies, accountId: string, id: string): Promise<WebhookDeliveryRecord> {
  const endpoint = await ownEndpoint(deps, accountId, id);
  if (endpoint.disabledAt) throw webhookErrors.endpointDisabled();
  await admitPing(deps, accountId, id);
  const deliveryId = await createPingDelivery(deps.db, accountId, id);
  const delivery = deliveryId ? await findWebhookDelivery(deps.db, { endpointId: id }, deliveryId) : null;
  if (!delivery) throw webhookErrors.endpointNotFound();
  await enqueueNow(deps, accountId, delivery);
  return delivery;
}

export async function listDeliveries(
  deps: ApiDependencies,
  accountId: string,
  id: string,
  query: { limit: number; after?: { createdAt: Date; id: string }; status?: WebhookDeliveryStatus },
): Promise<{ items: WebhookDeliveryRecord[]; next: WebhookDeliveryRecord | null }> {
  await ownEndpoint(deps, accountId, id);
  const rows = await listWebhookDeliveries(deps.db.reads, id, { ...query, limit: query.limit + 1 });
  const items = rows.slice(0, query.limit);
  return { items, next: rows.length > query.limit ? (items[items.length - 1] ?? null) : null };
}

/** Sends a delivery that succeeded or failed again, with the same message id and a new round of retries. */
export async function retryDelivery(
  deps: ApiDependencies,
  accountId: string,
  id: string,
  deliveryId: string,
): Promise<WebhookDeliveryRecord> {
  const endpoint = await ownEndpoint(deps, accountId, id);
  if (endpoint.disabledAt) throw webhookErrors.endpointDisabled();
  return resend(deps, accountId, { endpointId: id }, deliveryId);
}

async function resend(deps: ApiDependencies, accountId: string, scope: DeliveryScope, deliveryId: string): Promise<WebhookDeliveryRecord> {
  const outcome = await retryWebhookDelivery(deps.db, scope, deliveryId);
  if (outcome.kind === 'not_found') throw webhookErrors.deliveryNotFound();
  if (outcome.kind === 'pending') throw webhookErrors.deliveryPending();
  // The entry of its last round has ended but keeps its id: it is replaced.
  await deps.webhooks
    .requeue(outcome.delivery.id, 0, accountId)
    .catch((error: Error) => logger.warn('webhook delivery not enqueued', { deliveryId: outcome.delivery.id, error: error.message }));
  return outcome.delivery;
}

/** A job's deliveries, to its account's endpoints and to its own webhookUrl; another account's job is 404. */
export async function listJobDeliveries(deps: ApiDependencies, accountId: string, jobId: string): Promise<WebhookDeliveryRecord[]> {
  if (!(await findAccountJob(deps.db, accountId, jobId))) throw errors.jobNotFound();
  return listJobWebhookDeliveries(deps.db.reads, accountId, jobId);
}

/** Sends one of a job's deliveries again (a delivery to a disabled endpoint is abandoned by the worker). */
export async function retryJobDelivery(
  deps: ApiDependencies,
  accountId: string,
  jobId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRecord> {
  if (!(await findAccountJob(deps.db, accountId, jobId))) throw errors.jobNotFound();
  return resend(deps, accountId, { jobId, accountId }, deliveryId);
}

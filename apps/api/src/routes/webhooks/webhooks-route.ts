import { listWebhookEndpoints } from '@leadgen/db';
import { PING_EXTRA_UNITS, chargeRateLimit } from '../../http/rate-limit';
import { linkNext, nextPageUrl } from '../../http/paging';
import type { Valid } from '../../http/request-validation';
import { accountRoute } from '../../http/route-table';
import { deliveryBody, endpointBody } from '../../presenters/webhook-presenter';
import { audit } from '../../use-cases/audit-trail';
import { revealDefaultSecret, rotateDefaultSecret } from '../../use-cases/default-webhook-secret';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listJobDeliveries,
  pingEndpoint,
  retryJobDelivery,
  retryDelivery,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../use-cases/webhook-endpoints';
import type { DeliveryPath, IdPath, JobDeliveryPath, JobPath } from '../path-params';
import { deliveriesCursor, type DeliveriesQuery, type EndpointInput } from './webhooks-schema';

// /api/v1/webhooks (decision 016): the account's endpoints, their deliveries, the default secret.

const route = accountRoute;

export const createEndpointRoute = route(async (_req, res, deps, accountId, { body: input }: Valid<unknown, unknown, EndpointInput>) => {
  const { endpoint, secret } = await createEndpoint(deps, accountId, {
    url: input.url!,
    events: input.events!,
    description: input.description ?? null,
  });
  await audit(deps, res.locals, accountId, 'webhook_endpoint.created', { endpointId: endpoint.id, events: endpoint.events });
  res.setHeader('Location', `${deps.config.http.publicBaseUrl ?? ''}/api/v1/webhooks/${endpoint.id}`);
  res.status(201).json({ ...endpointBody(endpoint), secret });
});

export const listEndpointsRoute = route(async (_req, res, deps, accountId) => {
  res.json({ items: (await listWebhookEndpoints(deps.db, accountId)).map(endpointBody) });
});

export const getEndpointRoute = route(async (_req, res, deps, accountId, { params }: Valid<IdPath>) => {
  res.json(endpointBody(await getEndpoint(deps, accountId, params.id)));
});

export const updateEndpointRoute = route(
  async (_req, res, deps, accountId, { params, body: change }: Valid<IdPath, unknown, EndpointInput>) => {
    const endpoint = await updateEndpoint(deps, accountId, params.id, change);
    await audit(deps, res.locals, accountId, 'webhook_endpoint.changed', { endpointId: endpoint.id, fields: Object.keys(change).sort() });
    res.json(endpointBody(endpoint));
  },
);

export const deleteEndpointRoute = route(async (_req, res, deps, accountId, { params }: Valid<IdPath>) => {
  await deleteEndpoint(deps, accountId, params.id);
  await audit(deps, res.locals, accountId, 'webhook_endpoint.deleted', { endpointId: params.id });
  res.status(204).end();
});

export const rotateSecretRoute = route(async (_req, res, deps, accountId, { params }: Valid<IdPath>) => {
  const { endpoint, secret } = await rotateEndpointSecret(deps, accountId, params.id);
  await audit(deps, res.locals, accountId, 'webhook_endpoint.secret_rotated', { endpointId: endpoint.id });
  res.json({ ...endpointBody(endpoint), secret });
});

export const pingRoute = route(async (_req, res, deps, accountId, { params: { id } }: Valid<IdPath>) => {
  // Weighted by what it may cost: up to 8 outbound attempts.
  await chargeRateLimit(res, PING_EXTRA_UNITS);
  res.status(202).json(deliveryBody(await pingEndpoint(deps, accountId, id)));
});

export const listDeliveriesRoute = route(async (req, res, deps, accountId, { params, query }: Valid<IdPath, DeliveriesQuery>) => {
  const page = await listDeliveries(deps, accountId, params.id, { limit: query.limit, status: query.status, after: query.cursor });
  const nextCursor = page.next ? deliveriesCursor(page.next) : null;
  if (nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, nextCursor)));
  res.json({ items: page.items.map(deliveryBody), nextCursor });
});

export const retryDeliveryRoute = route(async (_req, res, deps, accountId, { params }: Valid<DeliveryPath>) => {
  res.status(202).json(deliveryBody(await retryDelivery(deps, accountId, params.id, params.deliveryId)));
});

const secretBody = (secret: { secret: string; createdAt: Date; previousSecretExpiresAt: Date | null }) => ({
  secret: secret.secret,
  createdAt: secret.createdAt.toISOString(),
  previousSecretExpiresAt: secret.previousSecretExpiresAt?.toISOString() ?? null,
});

export const revealDefaultSecretRoute = route(async (_req, res, deps, accountId) => {
  res.json(secretBody(await revealDefaultSecret(deps, accountId)));
});

export const rotateDefaultSecretRoute = route(async (_req, res, deps, accountId) => {
  const rotated = await rotateDefaultSecret(deps, accountId);
  await audit(deps, res.locals, accountId, 'webhook_default_secret.rotated', {});
  res.json(secretBody(rotated));
});

export const listJobDeliveriesRoute = route(async (_req, res, deps, accountId, { params }: Valid<JobPath>) => {
  res.json({ items: (await listJobDeliveries(deps, accountId, params.jobId)).map(deliveryBody) });
});

export const retryJobDeliveryRoute = route(async (_req, res, deps, accountId, { params }: Valid<JobDeliveryPath>) => {
  res.status(202).json(deliveryBody(await retryJobDelivery(deps, accountId, params.jobId, params.deliveryId)));
});

import type { Request, Response } from 'express';
import { listWebhookEndpoints, type WebhookDeliveryStatus } from '@leadgen/db';
import { ID_PATTERNS, errors, webhookErrors } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { PING_EXTRA_UNITS, chargeRateLimit } from '../../http/rate-limit';
import { linkNext, nextPageUrl, parseQuery } from '../../http/paging';
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
import { allowsPlainHttp } from '../../use-cases/webhook-target-check';
import {
  createEndpointSchema,
  deliveriesCursor,
  deliveriesQuerySchema,
  parseDeliveriesCursor,
  parseEndpointBody,
  updateEndpointSchema,
} from './webhooks-schema';

// /api/v1/webhooks (decision 016): the account's endpoints, their deliveries, the default secret.

// A malformed id cannot name anything: the same 404 as an unknown one, without asking the database
// (which refuses a NUL in text outright).
const param = (req: Request, name: 'id' | 'deliveryId' | 'jobId'): string => {
  const value = String(req.params[name]);
  if (name === 'id' && !ID_PATTERNS.webhookEndpoint.test(value)) throw webhookErrors.endpointNotFound();
  if (name === 'deliveryId' && !ID_PATTERNS.webhookDelivery.test(value)) throw webhookErrors.deliveryNotFound();
  if (name === 'jobId' && !ID_PATTERNS.job.test(value)) throw errors.jobNotFound();
  return value;
};

type Handler = (req: Request, res: Response, deps: ApiDependencies, accountId: string) => Promise<void>;

const route = (handler: Handler) => (deps: ApiDependencies) => async (req: Request, res: Response) => {
  res.setHeader('Cache-Control', 'no-store');
  await handler(req, res, deps, authenticatedAccount(res.locals).id);
};

export const createEndpointRoute = route(async (req, res, deps, accountId) => {
  const input = parseEndpointBody(createEndpointSchema(allowsPlainHttp(deps)), req.body);
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

export const getEndpointRoute = route(async (req, res, deps, accountId) => {
  res.json(endpointBody(await getEndpoint(deps, accountId, param(req, 'id'))));
});

export const updateEndpointRoute = route(async (req, res, deps, accountId) => {
  const change = parseEndpointBody(updateEndpointSchema(allowsPlainHttp(deps)), req.body);
  const endpoint = await updateEndpoint(deps, accountId, param(req, 'id'), change);
  await audit(deps, res.locals, accountId, 'webhook_endpoint.changed', { endpointId: endpoint.id, fields: Object.keys(change).sort() });
  res.json(endpointBody(endpoint));
});

export const deleteEndpointRoute = route(async (req, res, deps, accountId) => {
  await deleteEndpoint(deps, accountId, param(req, 'id'));
  await audit(deps, res.locals, accountId, 'webhook_endpoint.deleted', { endpointId: param(req, 'id') });
  res.status(204).end();
});

export const rotateSecretRoute = route(async (req, res, deps, accountId) => {
  const { endpoint, secret } = await rotateEndpointSecret(deps, accountId, param(req, 'id'));
  await audit(deps, res.locals, accountId, 'webhook_endpoint.secret_rotated', { endpointId: endpoint.id });
  res.json({ ...endpointBody(endpoint), secret });
});

export const pingRoute = route(async (req, res, deps, accountId) => {
  const id = param(req, 'id');
  // Weighted by what it may cost: up to 8 outbound attempts.
  await chargeRateLimit(res, PING_EXTRA_UNITS);
  res.status(202).json(deliveryBody(await pingEndpoint(deps, accountId, id)));
});

export const listDeliveriesRoute = route(async (req, res, deps, accountId) => {
  const query = parseQuery<{ limit: number; cursor?: string; status?: WebhookDeliveryStatus }>(deliveriesQuerySchema, req.query);
  const page = await listDeliveries(deps, accountId, param(req, 'id'), {
    limit: query.limit,
    status: query.status,
    after: query.cursor === undefined ? undefined : parseDeliveriesCursor(query.cursor),
  });
  const nextCursor = page.next ? deliveriesCursor(page.next) : null;
  if (nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, nextCursor)));
  res.json({ items: page.items.map(deliveryBody), nextCursor });
});

export const retryDeliveryRoute = route(async (req, res, deps, accountId) => {
  res.status(202).json(deliveryBody(await retryDelivery(deps, accountId, param(req, 'id'), param(req, 'deliveryId'))));
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

export const listJobDeliveriesRoute = route(async (req, res, deps, accountId) => {
  res.json({ items: (await listJobDeliveries(deps, accountId, param(req, 'jobId'))).map(deliveryBody) });
});

export const retryJobDeliveryRoute = route(async (req, res, deps, accountId) => {
  res.status(202).json(deliveryBody(await retryJobDelivery(deps, accountId, param(req, 'jobId'), param(req, 'deliveryId'))));
});

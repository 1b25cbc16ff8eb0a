import type { RequestHandler, Router } from 'express';
import type { ApiDependencies } from '../../dependencies';
import {
  createEndpointRoute,
  deleteEndpointRoute,
  getEndpointRoute,
  listDeliveriesRoute,
  listEndpointsRoute,
  listJobDeliveriesRoute,
  retryJobDeliveryRoute,
  pingRoute,
  retryDeliveryRoute,
  revealDefaultSecretRoute,
  rotateDefaultSecretRoute,
  rotateSecretRoute,
  updateEndpointRoute,
} from './webhooks-route';

/** The webhook paths under /api/v1 (the default secret's before `:id`, which would take its name). */
export function mountWebhookRoutes(
  v1: Router,
  deps: ApiDependencies,
  parts: { auth: RequestHandler; limit: RequestHandler; body: RequestHandler; methodNotAllowed: (...allow: string[]) => RequestHandler },
): void {
  const { auth, limit, body, methodNotAllowed } = parts;
  v1.post('/webhooks/default-secret', auth, limit, revealDefaultSecretRoute(deps));
  v1.all('/webhooks/default-secret', methodNotAllowed('POST'));
  v1.post('/webhooks/default-secret/rotate', auth, limit, rotateDefaultSecretRoute(deps));
  v1.all('/webhooks/default-secret/rotate', methodNotAllowed('POST'));
  v1.post('/webhooks', auth, limit, body, createEndpointRoute(deps));
  v1.get('/webhooks', auth, limit, listEndpointsRoute(deps));
  v1.all('/webhooks', methodNotAllowed('GET', 'POST'));
  v1.get('/webhooks/:id', auth, limit, getEndpointRoute(deps));
  v1.patch('/webhooks/:id', auth, limit, body, updateEndpointRoute(deps));
  v1.delete('/webhooks/:id', auth, limit, deleteEndpointRoute(deps));
  v1.all('/webhooks/:id', methodNotAllowed('GET', 'PATCH', 'DELETE'));
  v1.post('/webhooks/:id/rotate-secret', auth, limit, rotateSecretRoute(deps));
  v1.all('/webhooks/:id/rotate-secret', methodNotAllowed('POST'));
  v1.post('/webhooks/:id/test', auth, limit, pingRoute(deps));
  v1.all('/webhooks/:id/test', methodNotAllowed('POST'));
  v1.get('/webhooks/:id/deliveries', auth, limit, listDeliveriesRoute(deps));
  v1.all('/webhooks/:id/deliveries', methodNotAllowed('GET'));
  v1.post('/webhooks/:id/deliveries/:deliveryId/retry', auth, limit, retryDeliveryRoute(deps));
  v1.all('/webhooks/:id/deliveries/:deliveryId/retry', methodNotAllowed('POST'));
  // A job's deliveries, to its account's endpoints and its own webhookUrl.
  v1.get('/leads/jobs/:jobId/webhook-deliveries', auth, limit, listJobDeliveriesRoute(deps));
  v1.all('/leads/jobs/:jobId/webhook-deliveries', methodNotAllowed('GET'));
  v1.post('/leads/jobs/:jobId/webhook-deliveries/:deliveryId/retry', auth, limit, retryJobDeliveryRoute(deps));
  v1.all('/leads/jobs/:jobId/webhook-deliveries/:deliveryId/retry', methodNotAllowed('POST'));
}

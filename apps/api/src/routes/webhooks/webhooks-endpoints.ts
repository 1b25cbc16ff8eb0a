import { JSON_BODY_LIMIT_BYTES } from '@leadgen/config';
import { MAX_WEBHOOK_ENDPOINTS } from '@leadgen/domain';
import type { Endpoint } from '../../http/route-table';
import { d, deletedAnswer, hdr, jsonAnswer, listPage, object, pick, problemResponse, ref } from '../../openapi/openapi-schemas';
import { jobDeliveryPath, jobPath, webhookDeliveryPath, webhookEndpointPath } from '../path-params';
import { createEndpointSchema, deliveriesQuerySchema, updateEndpointSchema } from './webhooks-schema';
import {
  createEndpointRoute,
  deleteEndpointRoute,
  getEndpointRoute,
  listDeliveriesRoute,
  listEndpointsRoute,
  listJobDeliveriesRoute,
  pingRoute,
  retryDeliveryRoute,
  retryJobDeliveryRoute,
  revealDefaultSecretRoute,
  rotateDefaultSecretRoute,
  rotateSecretRoute,
  updateEndpointRoute,
} from './webhooks-route';

// The webhook endpoints under /api/v1 (decision 016): endpoints, their deliveries, the default secret; the
// `read` rate limit. The default secret's paths come before `{id}`, which would take its name.

const notFound = problemResponse("webhook_endpoint_not_found (also another account's endpoint)");
const conflict = (codes: string) => problemResponse(codes);
const answer = jsonAnswer;

export const webhookEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/v1/webhooks/default-secret',
    auth: 'key',
    scope: 'webhooks',
    rateLimit: { policy: 'read' },
    handler: revealDefaultSecretRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'revealDefaultWebhookSecret',
      summary: "The account's default secret (signs jobs' own `webhookUrl` deliveries): created if needed, shown once",
      description:
        "The secret that signs deliveries to jobs' own `webhookUrl`: made on first call and shown that once (409 afterwards; rotate to see a new one).",
      responses: {
        200: answer('The secret', ref('WebhookSecret')),
        409: conflict('webhook_secret_already_revealed'),
      },
    },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/default-secret/rotate',
    auth: 'key',
    scope: 'webhooks',
    rateLimit: { policy: 'read' },
    handler: rotateDefaultSecretRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'rotateDefaultWebhookSecret',
      summary: 'A new default secret, shown once; for 24 h deliveries are signed with the old one too',
      description: 'Makes a new default secret (shown once); deliveries carry both signatures for 24 h.',
      responses: { 200: answer('The new secret', ref('WebhookSecret')) },
    },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks',
    auth: 'key',
    scope: 'webhooks',
    rateLimit: { policy: 'read' },
    body: { limitBytes: JSON_BODY_LIMIT_BYTES },
    request: { body: createEndpointSchema },
    handler: createEndpointRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'createWebhookEndpoint',
      summary: `Add an endpoint (at most ${MAX_WEBHOOK_ENDPOINTS} per account); its secret is shown in this answer only`,
      description: 'Subscribes a URL to job events. Its signing secret is in this answer only; store it to verify deliveries.',
      responses: {
        201: answer('The endpoint and its secret', ref('WebhookEndpointWithSecret'), { Location: hdr('Location') }),
        409: conflict('webhook_endpoint_limit'),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/webhooks',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    handler: listEndpointsRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'listWebhookEndpoints',
      summary: "The account's endpoints, oldest first",
      description: 'Every endpoint of the account, oldest first, without secrets.',
      responses: {
        200: answer('Every endpoint', object({ items: d('The endpoints', { type: 'array', items: ref('WebhookEndpoint') }) })),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/{id}',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { params: webhookEndpointPath },
    handler: getEndpointRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'getWebhookEndpoint',
      summary: 'An endpoint',
      description: 'One endpoint, without its secret.',
      responses: { 200: answer('The endpoint', ref('WebhookEndpoint')), 404: notFound },
    },
  },
  {
    method: 'patch',
    path: '/api/v1/webhooks/{id}',
    auth: 'key',
    scope: 'webhooks',
    rateLimit: { policy: 'read' },
    body: { limitBytes: JSON_BODY_LIMIT_BYTES },
    request: { params: webhookEndpointPath, body: updateEndpointSchema },
    handler: updateEndpointRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'updateWebhookEndpoint',
      summary: 'Change an endpoint; `enabled: true` enables a disabled one (and forgets its failures)',
      description: 'Changes the URL, events, description or enabled state; only the fields sent change.',
      responses: { 200: answer('The endpoint', ref('WebhookEndpoint')), 404: notFound },
    },
  },
  {
    method: 'delete',
    path: '/api/v1/webhooks/{id}',
    auth: 'key',
    scope: 'webhooks',
    rateLimit: { policy: 'read' },
    request: { params: webhookEndpointPath },
    handler: deleteEndpointRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete an endpoint and its deliveries',
      description: 'Deletes the endpoint; nothing more is sent to it and its delivery history goes.',
      responses: { 204: deletedAnswer, 404: notFound },
    },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/rotate-secret',
    auth: 'key',
    scope: 'webhooks',
    rateLimit: { policy: 'read' },
    request: { params: webhookEndpointPath },
    handler: rotateSecretRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'rotateWebhookSecret',
      summary: 'A new secret, shown once; for 24 h deliveries are signed with the old one too',
      description: 'Makes a new signing secret (shown once); deliveries carry both signatures for 24 h so receivers can switch.',
      responses: {
        200: answer('The endpoint and its new secret', ref('WebhookEndpointWithSecret')),
        404: notFound,
      },
    },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/test',
    auth: 'key',
    scope: 'webhooks',
    rateLimit: { policy: 'read', weight: '1 + 7: a ping can cost up to 8 outbound attempts (PING_EXTRA_UNITS), refused before it is sent' },
    request: { params: webhookEndpointPath },
    handler: pingRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'pingWebhookEndpoint',
      summary: 'Send a `ping` event',
      description: 'Queues a `ping` event to the endpoint, to check that it receives and verifies deliveries.',
      responses: {
        202: answer("The ping's delivery, on its way", ref('WebhookDelivery')),
        404: notFound,
        409: conflict('webhook_endpoint_disabled'),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { params: webhookEndpointPath, query: deliveriesQuerySchema },
    handler: listDeliveriesRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'listWebhookDeliveries',
      summary: "The endpoint's deliveries, newest first, each with its attempts",
      description:
        "The endpoint's deliveries, newest first, each with its attempts; follow `nextCursor` for older ones. Those past the retention (`WEBHOOK_DELIVERY_RETENTION_DAYS`, where set) are gone, but for one still pending.",
      responses: {
        200: answer('A page of deliveries', listPage("The page's deliveries", 'WebhookDelivery'), { Link: hdr('Link') }),
        404: notFound,
      },
    },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry',
    auth: 'key',
    scope: 'webhooks',
    rateLimit: { policy: 'read' },
    request: { params: webhookDeliveryPath },
    handler: retryDeliveryRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery that succeeded or failed again: the same message id, a new round of retries',
      description:
        'Sends a finished delivery again now: the same message id, a new round of retries. A delivery past the retention (`WEBHOOK_DELIVERY_RETENTION_DAYS`, where set) is gone: 404.',
      responses: {
        202: answer('The delivery, pending again', ref('WebhookDelivery')),
        404: problemResponse('webhook_endpoint_not_found, webhook_delivery_not_found'),
        409: conflict('webhook_delivery_pending, webhook_endpoint_disabled'),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/leads/jobs/{jobId}/webhook-deliveries',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { params: jobPath },
    handler: listJobDeliveriesRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'listJobWebhookDeliveries',
      summary: "A job's deliveries: to the account's endpoints and to its own `webhookUrl`, each with its attempts",
      description: "Every delivery of the job's events, to the account's endpoints and to the job's own `webhookUrl`.",
      responses: {
        200: answer(
          "The job's deliveries, oldest first",
          object({ items: d('The deliveries', { type: 'array', items: ref('WebhookDelivery') }) }),
        ),
        ...pick(404),
      },
    },
  },
  {
    method: 'post',
    path: '/api/v1/leads/jobs/{jobId}/webhook-deliveries/{deliveryId}/retry',
    auth: 'key',
    scope: 'webhooks',
    rateLimit: { policy: 'read' },
    request: { params: jobDeliveryPath },
    handler: retryJobDeliveryRoute,
    operation: {
      tags: ['webhooks'],
      operationId: 'retryJobWebhookDelivery',
      summary: "Send one of a job's deliveries again (the way to resend one to its own `webhookUrl`)",
      description:
        "Sends one of the job's finished deliveries again: the same message id, a new round of retries. A delivery past the retention (`WEBHOOK_DELIVERY_RETENTION_DAYS`, where set) is gone: 404.",
      responses: {
        202: answer('The delivery, pending again', ref('WebhookDelivery')),
        404: problemResponse('job_not_found, webhook_delivery_not_found'),
        409: conflict('webhook_delivery_pending'),
      },
    },
  },
];

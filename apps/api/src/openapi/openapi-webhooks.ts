import {
  BATCH_EVENT_TYPES,
  JOB_EVENT_TYPES,
  MAX_WEBHOOK_ENDPOINTS,
  PING_EVENT,
  SUBSCRIBABLE_EVENTS,
  TERMINAL_STATUSES,
  WEBHOOK_URL_MAX_LENGTH,
} from '@leadgen/domain';
import { DELIVERIES_PAGE_DEFAULT, DELIVERIES_PAGE_LIMIT } from '../routes/webhooks/webhooks-schema';
import {
  listPage,
  type Schema,
  d,
  hdr,
  int,
  jobCommon,
  jobRequired,
  limited,
  nullable,
  object,
  pick,
  problemResponse,
  ref,
  str,
  terminalObject,
  time,
} from './openapi-schemas';

// The webhook part of the OpenAPI document (decision 016): the endpoints' paths, their schemas, and
// the events themselves as OpenAPI 3.1 `webhooks`.

const events = {
  description: 'The events to send: the job events, the batch events, and monitor.paused',
  type: 'array',
  items: { type: 'string', enum: [...SUBSCRIBABLE_EVENTS] },
  minItems: 1,
  uniqueItems: true,
};
const url = {
  type: 'string',
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description:
    'https (plain http only in development or with WEBHOOK_ALLOW_PRIVATE_NETWORKS); its host must resolve to public addresses only',
};
const endpointProperties = {
  id: d('The endpoint id', { type: 'string', pattern: '^whep_[0-9a-f]{24}$' }),
  url: d('Where events are POSTed', str),
  description: d('Your note about the endpoint', nullable(str)),
  events,
  enabled: d('false once disabled (by you, or after 410 Gone or days of failures)', { type: 'boolean' }),
  disabledAt: d('When it was disabled', nullable(time)),
  disabledReason: {
    ...nullable({ type: 'string', enum: ['disabled_by_owner', 'gone', 'failing'] }),
    description: '`gone`: it answered 410 Gone; `failing`: every attempt failed for 3 days (WEBHOOK_DISABLE_AFTER_MS)',
  },
  failingSince: { ...nullable(time), description: 'the first failed attempt since the last success' },
  previousSecretExpiresAt: {
    ...nullable(time),
    description: 'until then, deliveries carry a second signature made with the secret before the last rotation',
  },
  createdAt: d('When it was added', time),
  updatedAt: d('When it last changed', time),
};
const secret = {
  type: 'string',
  pattern: '^whsec_',
  description: 'Standard Webhooks signing secret (`whsec_` + base64 of 32 bytes), shown in this answer only',
};

export const webhookSchemas: Record<string, Schema> = {
  WebhookEndpoint: object(endpointProperties, undefined, { description: 'An endpoint; never its secret' }),
  WebhookEndpointWithSecret: object({ ...endpointProperties, secret }, undefined, {
    description: 'An endpoint with its new secret (creation, rotation)',
  }),
  WebhookAttempt: object(
    {
      attempt: d('1 for the first attempt', int(1)),
      url: d('The URL tried', str),
      startedAt: d('When the attempt started', time),
      responseStatus: d("The receiver's HTTP status, when it answered", nullable({ type: 'integer' })),
      latencyMs: d('How long the attempt took', int()),
      responseExcerpt: { ...nullable(str), description: 'the first KiB of the answer' },
      error: {
        ...nullable(str),
        description:
          'why no 2xx came when the status does not say it: timeout, redirect_not_followed, forbidden_address, forbidden_port, dns_failed, connection_refused, connection_reset, host_unreachable, tls_error, network_error (anything else)',
      },
      succeeded: d('A 2xx came back', { type: 'boolean' }),
    },
    undefined,
    { description: 'One attempt to deliver an event' },
  ),
  WebhookDelivery: object(
    {
      id: { type: 'string', description: 'the message id: the `webhook-id` header of every attempt' },
      eventType: d('The event sent', { type: 'string', enum: [...SUBSCRIBABLE_EVENTS, PING_EVENT] }),
      endpointId: { ...nullable(str), description: "null: the job's own `webhookUrl`" },
      jobId: d('The job the event is about (null for a ping)', nullable(str)),
      status: d('pending while attempts remain; succeeded or failed once done', {
        type: 'string',
        enum: ['pending', 'succeeded', 'failed'],
      }),
      createdAt: d('When the event was raised', time),
      nextAttemptAt: { ...nullable(time), description: 'while pending: when the next attempt is due' },
      deliveredAt: d('When an attempt succeeded', nullable(time)),
      attempts: d('Every attempt so far, oldest first', { type: 'array', items: ref('WebhookAttempt') }),
    },
    undefined,
    { description: 'One event on its way to one receiver, with its attempts' },
  ),
  WebhookSecret: object(
    {
      secret,
      createdAt: d('When the secret was made', time),
      previousSecretExpiresAt: d('Until then, the previous secret signs too', nullable(time)),
    },
    undefined,
    {
      description: "The account's default secret, which signs deliveries to a job's own `webhookUrl`",
    },
  ),
  JobEventData: object(
    {
      ...jobCommon,
      status: d('The terminal status', { type: 'string', enum: [...TERMINAL_STATUSES] }),
      terminal: terminalObject,
      leadsUrl: { type: 'string', description: "where to read the job's leads" },
    },
    jobRequired({ ...jobCommon, status: true, terminal: true, leadsUrl: true }),
    { description: 'The job body without `leads` (as GET /api/v1/leads/jobs/{jobId} answers it), and where its leads are' },
  ),
  BatchEventData: {
    description: 'The terminal batch body (as GET /api/v1/leads/batches/{batchId} answers it), and where its leads are',
    allOf: [ref('Batch'), object({ leadsUrl: { type: 'string', description: "where to read the batch's leads" } })],
  },
};

const notFound = problemResponse("webhook_endpoint_not_found (also another account's endpoint)");
const conflict = (codes: string) => problemResponse(codes);
const jobIdParam = { name: 'jobId', in: 'path', required: true, schema: str, example: 'job_0123456789abcdefghijklmn' };
const endpointIdParam = { name: 'id', in: 'path', required: true, schema: str, example: 'whep_0123456789abcdef01234567' };
const json = (schema: Schema) => ({ 'application/json': { schema } });
const answer = (description: string, schema: Schema, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: { ...limited, ...extraHeaders },
  content: json(schema),
});

export const webhookPaths = {
  '/api/v1/webhooks': {
    post: {
      tags: ['webhooks'],
      operationId: 'createWebhookEndpoint',
      summary: `Add an endpoint (at most ${MAX_WEBHOOK_ENDPOINTS} per account); its secret is shown in this answer only`,
      description: 'Subscribes a URL to job events. Its signing secret is in this answer only; store it to verify deliveries.',
      requestBody: {
        required: true,
        content: json(
          object({ url, events, description: d('Your note about the endpoint', { type: 'string', maxLength: 500 }) }, ['url', 'events']),
        ),
      },
      responses: {
        201: answer('The endpoint and its secret', ref('WebhookEndpointWithSecret'), { Location: hdr('Location') }),
        409: conflict('webhook_endpoint_limit'),
        ...pick(400, 401, 405, 413, 415, 429, 500, 503),
      },
    },
    get: {
      tags: ['webhooks'],
      operationId: 'listWebhookEndpoints',
      summary: "The account's endpoints, oldest first",
      description: 'Every endpoint of the account, oldest first, without secrets.',
      responses: {
        200: answer('Every endpoint', object({ items: d('The endpoints', { type: 'array', items: ref('WebhookEndpoint') }) })),
        ...pick(401, 405, 429, 500, 503),
      },
    },
  },
  '/api/v1/webhooks/{id}': {
    parameters: [endpointIdParam],
    get: {
      tags: ['webhooks'],
      operationId: 'getWebhookEndpoint',
      summary: 'An endpoint',
      description: 'One endpoint, without its secret.',
      responses: { 200: answer('The endpoint', ref('WebhookEndpoint')), 404: notFound, ...pick(401, 405, 429, 500, 503) },
    },
    patch: {
      tags: ['webhooks'],
      operationId: 'updateWebhookEndpoint',
      summary: 'Change an endpoint; `enabled: true` enables a disabled one (and forgets its failures)',
      description: 'Changes the URL, events, description or enabled state; only the fields sent change.',
      requestBody: {
        required: true,
        content: json(
          object(
            {
              url,
              events,
              description: d('Your note (null removes it)', nullable({ type: 'string', maxLength: 500 })),
              enabled: d('true enables a disabled endpoint; false disables it', { type: 'boolean' }),
            },
            [],
            { minProperties: 1 },
          ),
        ),
      },
      responses: { 200: answer('The endpoint', ref('WebhookEndpoint')), 404: notFound, ...pick(400, 401, 405, 413, 415, 429, 500, 503) },
    },
    delete: {
      tags: ['webhooks'],
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete an endpoint and its deliveries',
      description: 'Deletes the endpoint; nothing more is sent to it and its delivery history goes.',
      responses: { 204: { description: 'Deleted', headers: limited }, 404: notFound, ...pick(401, 405, 429, 500, 503) },
    },
  },
  '/api/v1/webhooks/{id}/rotate-secret': {
    parameters: [endpointIdParam],
    post: {
      tags: ['webhooks'],
      operationId: 'rotateWebhookSecret',
      summary: 'A new secret, shown once; for 24 h deliveries are signed with the old one too',
      description: 'Makes a new signing secret (shown once); deliveries carry both signatures for 24 h so receivers can switch.',
      responses: {
        200: answer('The endpoint and its new secret', ref('WebhookEndpointWithSecret')),
        404: notFound,
        ...pick(401, 405, 429, 500, 503),
      },
    },
  },
  '/api/v1/webhooks/{id}/test': {
    parameters: [endpointIdParam],
    post: {
      tags: ['webhooks'],
      operationId: 'pingWebhookEndpoint',
      summary: 'Send a `ping` event',
      description: 'Queues a `ping` event to the endpoint, to check that it receives and verifies deliveries.',
      responses: {
        202: answer("The ping's delivery, on its way", ref('WebhookDelivery')),
        404: notFound,
        409: conflict('webhook_endpoint_disabled'),
        ...pick(401, 405, 429, 500, 503),
      },
    },
  },
  '/api/v1/webhooks/{id}/deliveries': {
    parameters: [endpointIdParam],
    get: {
      tags: ['webhooks'],
      operationId: 'listWebhookDeliveries',
      summary: "The endpoint's deliveries, newest first, each with its attempts",
      description: "The endpoint's deliveries, newest first, each with its attempts; follow `nextCursor` for older ones.",
      parameters: [
        {
          name: 'limit',
          in: 'query',
          description: 'Deliveries per page',
          schema: { type: 'integer', minimum: 1, maximum: DELIVERIES_PAGE_LIMIT, default: DELIVERIES_PAGE_DEFAULT },
        },
        { name: 'cursor', in: 'query', description: 'nextCursor of the previous page', schema: str },
        {
          name: 'status',
          in: 'query',
          description: 'Only deliveries in this state',
          schema: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
        },
      ],
      responses: {
        200: answer('A page of deliveries', listPage("The page's deliveries", 'WebhookDelivery'), { Link: hdr('Link') }),
        404: notFound,
        ...pick(400, 401, 405, 429, 500, 503),
      },
    },
  },
  '/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry': {
    parameters: [endpointIdParam, { name: 'deliveryId', in: 'path', required: true, schema: str }],
    post: {
      tags: ['webhooks'],
      operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery that succeeded or failed again: the same message id, a new round of retries',
      description: 'Sends a finished delivery again now: the same message id, a new round of retries.',
      responses: {
        202: answer('The delivery, pending again', ref('WebhookDelivery')),
        404: problemResponse('webhook_endpoint_not_found, webhook_delivery_not_found'),
        409: conflict('webhook_delivery_pending, webhook_endpoint_disabled'),
        ...pick(401, 405, 429, 500, 503),
      },
    },
  },
  '/api/v1/leads/jobs/{jobId}/webhook-deliveries': {
    parameters: [jobIdParam],
    get: {
      tags: ['webhooks'],
      operationId: 'listJobWebhookDeliveries',
      summary: "A job's deliveries: to the account's endpoints and to its own `webhookUrl`, each with its attempts",
      description: "Every delivery of the job's events, to the account's endpoints and to the job's own `webhookUrl`.",
      responses: {
        200: answer(
          "The job's deliveries, oldest first",
          object({ items: d('The deliveries', { type: 'array', items: ref('WebhookDelivery') }) }),
        ),
        ...pick(401, 404, 405, 429, 500, 503),
      },
    },
  },
  '/api/v1/leads/jobs/{jobId}/webhook-deliveries/{deliveryId}/retry': {
    parameters: [jobIdParam, { name: 'deliveryId', in: 'path', required: true, schema: str }],
    post: {
      tags: ['webhooks'],
      operationId: 'retryJobWebhookDelivery',
      summary: "Send one of a job's deliveries again (the way to resend one to its own `webhookUrl`)",
      description: "Sends one of the job's finished deliveries again: the same message id, a new round of retries.",
      responses: {
        202: answer('The delivery, pending again', ref('WebhookDelivery')),
        404: problemResponse('job_not_found, webhook_delivery_not_found'),
        409: conflict('webhook_delivery_pending'),
        ...pick(401, 405, 429, 500, 503),
      },
    },
  },
  '/api/v1/webhooks/default-secret': {
    post: {
      tags: ['webhooks'],
      operationId: 'revealDefaultWebhookSecret',
      summary: "The account's default secret (signs jobs' own `webhookUrl` deliveries): created if needed, shown once",
      description:
        "The secret that signs deliveries to jobs' own `webhookUrl`: made on first call and shown that once (409 afterwards; rotate to see a new one).",
      responses: {
        200: answer('The secret', ref('WebhookSecret')),
        409: conflict('webhook_secret_already_revealed'),
        ...pick(401, 405, 429, 500, 503),
      },
    },
  },
  '/api/v1/webhooks/default-secret/rotate': {
    post: {
      tags: ['webhooks'],
      operationId: 'rotateDefaultWebhookSecret',
      summary: 'A new default secret, shown once; for 24 h deliveries are signed with the old one too',
      description: 'Makes a new default secret (shown once); deliveries carry both signatures for 24 h.',
      responses: { 200: answer('The new secret', ref('WebhookSecret')), ...pick(401, 405, 429, 500, 503) },
    },
  },
};

export const signatureHeaders = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The message id (`msg_…`): the same on every attempt of one event; deduplicate on it',
    schema: str,
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt; refuse one more than 5 minutes off',
    schema: str,
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one per secret in force (two for 24 h after a rotation). Verify with a Standard Webhooks library.',
    schema: str,
  },
];
export const received = {
  '2XX': { description: 'Received. Answer within 15 s (WEBHOOK_TIMEOUT_MS); redirects are not followed' },
  '410': { description: 'Gone: the endpoint is disabled (reason `gone`) and nothing more is sent to it' },
  default: { description: 'Anything else, or no answer in time: retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (±20 %)' },
};

const eventSummary = (type: string) => {
  if (type === PING_EVENT) return 'Sent by POST /api/v1/webhooks/{id}/test';
  const [kind, outcome] = type.split('.') as [string, string];
  return `A ${kind} reached ${outcome === 'completed' ? 'COMPLETE' : outcome.toUpperCase()}`;
};
const eventDescription = (type: string) => {
  if (type === PING_EVENT) return 'A test event, sent when you ask for one; answer 2xx.';
  if (type.startsWith('batch.'))
    return "Sent once when a batch's last child settles, to each endpoint subscribed to it and the batch's own `webhookUrl`, signed as Standard Webhooks; the same `webhook-id` on every retry. Children send job events to subscribed endpoints only, never to the batch's `webhookUrl`.";
  return "Sent once per event to each subscribed endpoint (and the job's own `webhookUrl`), signed as Standard Webhooks; the same `webhook-id` on every retry.";
};
const eventData = (type: string) => {
  if (type === PING_EVENT) return d('The pinged endpoint', object({ endpointId: d('Its id', str) }));
  return ref(type.startsWith('batch.') ? 'BatchEventData' : 'JobEventData');
};

/** OpenAPI 3.1 `webhooks`: what this service POSTs to an endpoint, a job's or a batch's `webhookUrl`. */
export const webhookEvents = Object.fromEntries(
  [...JOB_EVENT_TYPES, ...BATCH_EVENT_TYPES, PING_EVENT].map((type) => [
    type,
    {
      post: {
        tags: ['webhooks'],
        operationId: `event_${type.replace('.', '_')}`,
        summary: eventSummary(type),
        description: eventDescription(type),
        security: [],
        parameters: signatureHeaders,
        requestBody: {
          required: true,
          content: json(
            object({
              type: d('The event type', { const: type }),
              timestamp: {
                ...time,
                description:
                  type === PING_EVENT
                    ? 'when the ping was asked for'
                    : `when the ${type.split('.')[0]} reached its terminal status (its finishedAt)`,
              },
              data: eventData(type),
            }),
          ),
        },
        responses: received,
      },
    },
  ]),
);

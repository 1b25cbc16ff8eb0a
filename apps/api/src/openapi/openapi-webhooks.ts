import {
  BATCH_EVENT_TYPES,
  JOB_EVENT_TYPES,
  PING_EVENT,
  SUBSCRIBABLE_EVENTS,
  SUBJECT_OBJECTED_EVENT,
  TERMINAL_STATUSES,
  WEBHOOK_URL_MAX_LENGTH,
} from '@leadgen/domain';
import { type Schema, d, int, jobCommon, jobRequired, nullable, object, ref, str, terminalObject, time } from './openapi-schemas';

// The webhook components of the OpenAPI document (decision 016): the schemas, and the events themselves
// as OpenAPI 3.1 `webhooks` (the paths are declared in routes/webhooks/webhooks-endpoints.ts).

export const events = {
  description: 'The events to send: the job events, the batch events, and monitor.paused',
  type: 'array',
  items: { type: 'string', enum: [...SUBSCRIBABLE_EVENTS] },
  minItems: 1,
  uniqueItems: true,
};
export const url = {
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

const json = (schema: Schema) => ({ 'application/json': { schema } });

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
      eventType: d('The event sent', { type: 'string', enum: [...SUBSCRIBABLE_EVENTS, PING_EVENT, SUBJECT_OBJECTED_EVENT] }),
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

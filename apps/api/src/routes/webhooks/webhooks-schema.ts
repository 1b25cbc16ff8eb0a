import Joi from 'joi';
import { SUBSCRIBABLE_EVENTS, WEBHOOK_URL_MAX_LENGTH, webhookUrlProblem, type SubscribableEvent } from '@leadgen/domain';
import type { WebhookDeliveryStatus } from '@leadgen/db';
import { encodeCursor, pageCursor, pageLimit, timeAndId } from '../../http/paging';

/**
 * A target URL's form: a URI as RFC 3986 writes one (Joi's `uri()`, so the document says `format: uri` and means
 * it), https (plain http only in development or with private networks allowed: the route table's context says,
 * unless `allowHttp` is given), no credentials, no fragment (webhookUrlProblem).
 */
export const webhookUrl = (options: { allowHttp?: boolean } = {}) =>
  Joi.string()
    .max(WEBHOOK_URL_MAX_LENGTH)
    .uri()
    .custom((value: string, helpers) => {
      const allowHttp = options.allowHttp ?? (helpers.prefs.context as { allowHttp?: boolean } | undefined)?.allowHttp === true;
      const problem = webhookUrlProblem(value, { allowHttp });
      return problem ? helpers.message({ custom: `{{#label}} ${problem}` }) : value;
    })
    .messages({ 'string.uri': '{{#label}} must be an absolute URL as RFC 3986 writes one (spaces and non-ASCII percent-encoded)' });

const events = Joi.array()
  .items(Joi.string().valid(...SUBSCRIBABLE_EVENTS))
  .min(1)
  .unique()
  .description(`The events to receive: ${SUBSCRIBABLE_EVENTS.join(', ')}`);
const description = Joi.string().trim().max(500).allow('');
// An empty description is none: stored as null.
const noEmptyDescription = (value: EndpointInput) => (value.description === '' ? { ...value, description: null } : value);

/** POST /api/v1/webhooks: a new endpoint. */
export const createEndpointSchema = Joi.object<EndpointInput>({
  url: webhookUrl().required().description('Where events are POSTed: an https URL whose host resolves to public addresses only'),
  events: events.required(),
  description: description.description('Your note about the endpoint, at most 500 characters'),
})
  .required()
  .messages({ 'object.unknown': '{{#label}} is not a field of a webhook endpoint', 'object.base': 'the body must be a JSON object' })
  .custom(noEmptyDescription);

/** PATCH /api/v1/webhooks/{id}: the fields to change, at least one. */
export const updateEndpointSchema = Joi.object<EndpointInput>({
  url: webhookUrl().description('Where events are POSTed: an https URL whose host resolves to public addresses only'),
  events,
  description: description.allow(null).description('Your note (null or empty removes it)'),
  enabled: Joi.boolean().strict().description('false disables the endpoint; true enables it again (and forgets its failure streak)'),
})
  .min(1)
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a field of a webhook endpoint',
    'object.base': 'the body must be a JSON object',
    'object.min': 'send at least one of url, events, description, enabled',
  })
  .custom(noEmptyDescription);

export interface EndpointInput {
  url?: string;
  events?: SubscribableEvent[];
  description?: string | null;
  enabled?: boolean;
}

export const DELIVERIES_PAGE_DEFAULT = 20;
export const DELIVERIES_PAGE_LIMIT = 100;

const CURSOR_KIND = 'webhook-deliveries';

export function deliveriesCursor(last: { createdAt: Date; id: string }): string {
  return encodeCursor(CURSOR_KIND, [last.createdAt.toISOString(), last.id]);
}

export interface DeliveriesQuery {
  limit: number;
  cursor?: { createdAt: Date; id: string };
  status?: WebhookDeliveryStatus;
}

/** GET /api/v1/webhooks/{id}/deliveries: `limit`, `cursor`, `status`. */
export const deliveriesQuerySchema = Joi.object<DeliveriesQuery>({
  limit: pageLimit('Deliveries per page', DELIVERIES_PAGE_LIMIT, DELIVERIES_PAGE_DEFAULT),
  cursor: pageCursor(CURSOR_KIND, timeAndId),
  status: Joi.string().valid('pending', 'succeeded', 'failed').description('Only deliveries in this state'),
}).messages({ 'object.unknown': '{{#label}} is not a parameter of this list (limit, cursor, status)' });

import Joi from 'joi';
import {
  SUBSCRIBABLE_EVENTS,
  WEBHOOK_URL_MAX_LENGTH,
  errors,
  webhookUrlProblem,
  type FieldProblem,
  type SubscribableEvent,
} from '@leadgen/domain';
import { jsonPointer, unsafeContentProblems } from '../../http/body-guard';
import { cursorKey, decodeCursor, encodeCursor } from '../../http/paging';

/** A target URL's form: https (plain http only in development or with private networks allowed), no credentials. */
export const webhookUrl = (allowHttp: boolean) =>
  Joi.string()
    .max(WEBHOOK_URL_MAX_LENGTH)
    .custom((value: string, helpers) => {
      const problem = webhookUrlProblem(value, { allowHttp });
      return problem ? helpers.message({ custom: `{{#label}} ${problem}` }) : value;
    });

const events = Joi.array()
  .items(Joi.string().valid(...SUBSCRIBABLE_EVENTS))
  .min(1)
  .unique();
const description = Joi.string().trim().max(500).allow('');

/** POST /api/v1/webhooks: a new endpoint. */
export const createEndpointSchema = (allowHttp: boolean) =>
  Joi.object({
    /** where events are POSTed: an https URL whose host resolves to public addresses only */
    url: webhookUrl(allowHttp).required(),
    /** the events to receive: job.completed, job.partial, job.empty, job.failed, job.cancelled, the same five of batch, and monitor.paused */
    events: events.required(),
    /** a note for yourself, at most 500 characters */
    description,
  })
    .required()
    .messages({ 'object.unknown': '{{#label}} is not a field of a webhook endpoint', 'object.base': 'the body must be a JSON object' });

/** PATCH /api/v1/webhooks/{id}: the fields to change, at least one. */
export const updateEndpointSchema = (allowHttp: boolean) =>
  Joi.object({
    url: webhookUrl(allowHttp),
    events,
    description: description.allow(null),
    /** false disables the endpoint; true enables it again (and forgets its failure streak) */
    enabled: Joi.boolean().strict(),
  })
    .min(1)
    .required()
    .messages({
      'object.unknown': '{{#label}} is not a field of a webhook endpoint',
      'object.base': 'the body must be a JSON object',
      'object.min': 'send at least one of url, events, description, enabled',
    });

export interface EndpointInput {
  url?: string;
  events?: SubscribableEvent[];
  description?: string | null;
  enabled?: boolean;
}

/** Validates a body against its schema, every problem at once (400 validation_failed). */
export function parseEndpointBody(schema: Joi.ObjectSchema, body: unknown): EndpointInput {
  const unsafe = unsafeContentProblems(body);
  const { value, error } = schema.validate(body, { abortEarly: false, errors: { wrap: { label: false } } });
  if (error || unsafe.length > 0) {
    const flagged = new Set(unsafe.map((p) => p.pointer));
    const problems: FieldProblem[] = (error?.details ?? []).map((d) => ({ pointer: jsonPointer(d.path), detail: d.message }));
    throw errors.validation([...unsafe, ...problems.filter((p) => !flagged.has(p.pointer))]);
  }
  const input = value as EndpointInput;
  if (input.description === '') input.description = null;
  return input;
}

export const DELIVERIES_PAGE_DEFAULT = 20;
export const DELIVERIES_PAGE_LIMIT = 100;

/** GET /api/v1/webhooks/{id}/deliveries: `limit`, `cursor`, `status`. */
export const deliveriesQuerySchema = Joi.object({
  limit: Joi.number().integer().min(1).max(DELIVERIES_PAGE_LIMIT).default(DELIVERIES_PAGE_DEFAULT),
  cursor: Joi.string().max(500),
  status: Joi.string().valid('pending', 'succeeded', 'failed'),
}).messages({ 'object.unknown': '{{#label}} is not a parameter of this list (limit, cursor, status)' });

const CURSOR_KIND = 'webhook-deliveries';

export function deliveriesCursor(last: { createdAt: Date; id: string }): string {
  return encodeCursor(CURSOR_KIND, [last.createdAt.toISOString(), last.id]);
}

export function parseDeliveriesCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = decodeCursor(CURSOR_KIND, cursor) ?? [];
  const createdAt = cursorKey.time(at);
  const key = cursorKey.text(id);
  if (!createdAt || key === null) throw errors.validation([{ pointer: '#/cursor', detail: 'cursor is not one this list gave out' }]);
  return { createdAt, id: key };
}

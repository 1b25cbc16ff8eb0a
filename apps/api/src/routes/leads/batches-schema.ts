import Joi from 'joi';
import { BATCH_STATUSES, MAX_BATCH_REQUESTS, type GenerationRequest } from '@leadgen/domain';
import { decodeCursor, oneOrMore, rfc3339 } from '../../http/paging';
import type { BatchJobsQuery, ListBatchesQuery } from '../../use-cases/read-batches';
import type { BatchRequest } from '../../use-cases/submit-batch';
import { webhookUrl } from '../webhooks/webhooks-schema';
import { generationRequestItem } from './generate-schema';
import { EXPORT_FORMATS, LEADS_PAGE_DEFAULT, LEADS_PAGE_LIMIT, type ExportFormat } from './leads-schema';

/**
 * POST /api/v1/leads/batches: each of `requests` is checked as POST /leads/generate checks one (pointers
 * into the array, `#/requests/17/state`). `excludeDelivered` of the batch is written into each child's
 * request, so a child is the job it would have been on its own.
 */
export const batchRequestSchema = Joi.object({
  requests: Joi.array()
    .items(generationRequestItem(MAX_BATCH_REQUESTS))
    .min(1)
    .max(MAX_BATCH_REQUESTS)
    .required()
    .description(`The generation requests, 1..${MAX_BATCH_REQUESTS}, each exactly as POST /api/v1/leads/generate takes one`),
  excludeDelivered: Joi.boolean()
    .strict()
    .description('Skip leads the account received in any earlier job, for every child (default false; a request may also say so itself)'),
  maxCredits: Joi.number()
    .strict()
    .integer()
    .min(1)
    .max(2_147_483_647)
    .description('The most the batch may charge, in credits; a child starts only while its worst case still fits'),
  webhookUrl: webhookUrl({ allowHttp: true }).description(
    "Where the batch's terminal event is POSTed, signed with the account's default webhook secret",
  ),
  name: Joi.string().trim().min(1).max(200).description('A label for the batch, at most 200 characters'),
})
  .required()
  .messages({ 'object.unknown': '{{#label}} is not a field of the batch request', 'object.base': 'the body must be a JSON object' })
  .custom(
    (fields: { requests: GenerationRequest[]; excludeDelivered?: boolean; maxCredits?: number; webhookUrl?: string; name?: string }) => {
      const excludeDelivered = fields.excludeDelivered === true;
      return {
        requests: excludeDelivered ? fields.requests.map((request) => ({ ...request, excludeDelivered: true })) : fields.requests,
        excludeDelivered,
        maxCredits: fields.maxCredits ?? null,
        webhookUrl: fields.webhookUrl ?? null,
        name: fields.name ?? null,
      } satisfies BatchRequest;
    },
  )
  .description('A batch: up to 1,000 generation requests run as ordinary jobs, deduplicated across the batch')
  .example({
    name: 'Dentists, Texas',
    maxCredits: 2000,
    requests: [
      { category: 'dentist', state: 'US', city: 'Austin', maxResults: 25 },
      { category: 'dentist', state: 'US', city: 'Round Rock', maxResults: 25 },
    ],
  })
  .meta({ 'x-component': 'BatchRequest' });

export const BATCHES_PAGE_DEFAULT = 20;
export const BATCHES_PAGE_LIMIT = 100;

const keysetCursor = (kind: string) =>
  Joi.string()
    .max(512)
    .custom((value: string, helpers) => {
      const [time, id] = decodeCursor(kind, value) ?? [];
      if (typeof time !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(time))) return helpers.error('cursor.invalid');
      return { createdAt: new Date(time), id };
    })
    .messages({ 'cursor.invalid': '{{#label}} is not a cursor of this listing (pass nextCursor back as it was given)' });

/** GET /api/v1/leads/batches: the query of the batch listing (paged as the job listing is). */
export const listBatchesQuerySchema = Joi.object<ListBatchesQuery>({
  /** batches per page, 1..100 (default 20) */
  limit: Joi.number().integer().min(1).max(BATCHES_PAGE_LIMIT).default(BATCHES_PAGE_DEFAULT),
  /** the previous page's nextCursor */
  cursor: keysetCursor('b'),
  /** only batches in one of these statuses (repeat the parameter or separate with commas) */
  status: oneOrMore(Joi.string().valid(...BATCH_STATUSES)),
  /** only batches created at or after this RFC 3339 time */
  createdAfter: rfc3339,
  /** only batches created before this RFC 3339 time */
  createdBefore: rfc3339,
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

const indexCursor = Joi.string()
  .max(512)
  .custom((value: string, helpers) => {
    const [index] = decodeCursor('c', value) ?? [];
    return Number.isInteger(index) && (index as number) >= 0 && (index as number) < MAX_BATCH_REQUESTS
      ? index
      : helpers.error('cursor.invalid');
  })
  .messages({ 'cursor.invalid': '{{#label}} is not a cursor of this listing (pass nextCursor back as it was given)' });

/** GET /api/v1/leads/batches/{batchId}/jobs: the batch's children in request order. */
export const batchJobsQuerySchema = Joi.object<BatchJobsQuery>({
  /** jobs per page, 1..100 (default 20) */
  limit: Joi.number().integer().min(1).max(BATCHES_PAGE_LIMIT).default(BATCHES_PAGE_DEFAULT),
  /** the previous page's nextCursor */
  cursor: indexCursor,
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

const batchLeadCursor = Joi.string()
  .max(512)
  .custom((value: string, helpers) => {
    const [index, position] = decodeCursor('bl', value) ?? [];
    const inRange = (n: unknown, max: number) => Number.isInteger(n) && (n as number) >= 0 && (n as number) < max;
    return inRange(index, MAX_BATCH_REQUESTS) && inRange(position, 2_147_483_647)
      ? { batchIndex: index as number, position: position as number }
      : helpers.error('cursor.invalid');
  })
  .messages({ 'cursor.invalid': '{{#label}} is not a cursor of this listing (pass nextCursor back as it was given)' });

/** GET /api/v1/leads/batches/{batchId}/leads: the batch's leads, children in request order, each one's in delivery order. */
export const batchLeadsQuerySchema = Joi.object<BatchLeadsQuery>({
  /** leads per page of the JSON answer, 1..1000 (default 100); CSV and JSON Lines stream the whole selection */
  limit: Joi.number().integer().min(1).max(LEADS_PAGE_LIMIT).default(LEADS_PAGE_DEFAULT),
  /** json (default), csv or jsonl; overrides Accept */
  format: Joi.string().valid(...EXPORT_FORMATS),
  /** the previous page's nextCursor */
  cursor: batchLeadCursor,
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

export interface BatchLeadsQuery {
  limit: number;
  format?: ExportFormat;
  cursor?: { batchIndex: number; position: number };
}

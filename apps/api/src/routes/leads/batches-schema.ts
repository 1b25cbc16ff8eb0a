import Joi from 'joi';
import { BATCH_STATUSES, MAX_BATCH_REQUESTS, type GenerationRequest } from '@leadgen/domain';
import { oneOrMore, pageCursor, pageLimit, rfc3339Bound, timeAndId } from '../../http/paging';
import type { BatchJobsQuery, ListBatchesQuery } from '../../use-cases/read-batches';
import type { BatchRequest } from '../../use-cases/submit-batch';
import { webhookUrl } from '../webhooks/webhooks-schema';
import { generationRequestItem } from './generate-schema';
import { leadsLimit, legacyFormat, type ExportFormat } from './leads-schema';

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

const notAParameter = { 'object.unknown': '{{#label}} is not a query parameter of this endpoint' };

/** GET /api/v1/leads/batches: the query of the batch listing (paged as the job listing is). */
export const listBatchesQuerySchema = Joi.object<ListBatchesQuery>({
  limit: pageLimit('Batches per page', BATCHES_PAGE_LIMIT, BATCHES_PAGE_DEFAULT),
  cursor: pageCursor('b', timeAndId),
  status: oneOrMore(Joi.string().valid(...BATCH_STATUSES)).description(
    'One or more statuses as a comma list (`status=running,PARTIAL`); repeating the parameter is accepted too',
  ),
  createdAfter: rfc3339Bound('Batches created at or after'),
  createdBefore: rfc3339Bound('Batches created before'),
}).messages(notAParameter);

const inRange = (n: unknown, max: number) => Number.isInteger(n) && (n as number) >= 0 && (n as number) < max;

/** GET /api/v1/leads/batches/{batchId}/jobs: the batch's children in request order. */
export const batchJobsQuerySchema = Joi.object<BatchJobsQuery>({
  limit: pageLimit('Jobs per page', BATCHES_PAGE_LIMIT, BATCHES_PAGE_DEFAULT),
  cursor: pageCursor('c', ([index]) => (inRange(index, MAX_BATCH_REQUESTS) ? index : null)),
}).messages(notAParameter);

/** GET /api/v1/leads/batches/{batchId}/leads: the batch's leads, children in request order, each one's in delivery order. */
export const batchLeadsQuerySchema = Joi.object<BatchLeadsQuery>({
  limit: leadsLimit,
  cursor: pageCursor('bl', ([index, position]) =>
    inRange(index, MAX_BATCH_REQUESTS) && inRange(position, 2_147_483_647)
      ? { batchIndex: index as number, position: position as number }
      : null,
  ),
  format: legacyFormat,
}).messages(notAParameter);

export interface BatchLeadsQuery {
  limit: number;
  format?: ExportFormat;
  cursor?: { batchIndex: number; position: number };
}

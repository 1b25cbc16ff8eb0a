import Joi from 'joi';
import { BATCH_STATUSES, MAX_BATCH_REQUESTS, errors, type FieldProblem, type GenerationRequest } from '@leadgen/domain';
import { jsonPointer, unsafeContentProblems } from '../../http/body-guard';
import { decodeCursor, oneOrMore, rfc3339 } from '../../http/paging';
import type { BatchJobsQuery, ListBatchesQuery } from '../../use-cases/read-batches';
import type { BatchRequest } from '../../use-cases/submit-batch';
import { webhookUrl } from '../webhooks/webhooks-schema';
import { checkGenerationRequest } from './generate-schema';
import { EXPORT_FORMATS, LEADS_PAGE_DEFAULT, LEADS_PAGE_LIMIT, type ExportFormat } from './leads-schema';

/** POST /api/v1/leads/batches: the batch's own fields; each of `requests` is checked as POST /leads/generate checks one. */
const batchFieldsSchema = Joi.object({
  /** the generation requests, 1..1000, each exactly as POST /api/v1/leads/generate takes one */
  requests: Joi.array().min(1).max(MAX_BATCH_REQUESTS).required(),
  /** skip leads this account received in any earlier job, for every child (a request may also say so itself) */
  excludeDelivered: Joi.boolean().strict(),
  /** the most the batch may charge, in credits: children start only while their worst case fits */
  maxCredits: Joi.number().strict().integer().min(1).max(2_147_483_647),
  /** where the batch's terminal event is POSTed, signed with the account's default webhook secret */
  webhookUrl: webhookUrl(true),
  /** a label for the batch, at most 200 characters */
  name: Joi.string().trim().min(1).max(200),
})
  .required()
  .messages({ 'object.unknown': '{{#label}} is not a field of the batch request', 'object.base': 'the body must be a JSON object' });

/**
 * Validates and normalises a batch request: every problem at once, the requests' with pointers into the
 * array (`#/requests/17/state`), 400 validation_failed. `excludeDelivered` of the batch is written into each
 * child's request, so a child is the job it would have been on its own.
 */
export function parseBatchRequest(body: unknown): BatchRequest {
  const rest = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : body;
  const items =
    rest && typeof rest === 'object' && Array.isArray((rest as { requests?: unknown }).requests)
      ? (rest as { requests: unknown[] }).requests
      : null;
  const unsafe = unsafeContentProblems(items ? { ...(rest as object), requests: [] } : rest);
  const { value, error } = batchFieldsSchema.validate(rest, { abortEarly: false, errors: { wrap: { label: false } } });
  const flagged = new Set(unsafe.map((p) => p.pointer));
  const problems: FieldProblem[] = [
    ...unsafe,
    ...(error?.details ?? []).map((d) => ({ pointer: jsonPointer(d.path), detail: d.message })).filter((p) => !flagged.has(p.pointer)),
  ];
  const requests: GenerationRequest[] = [];
  if (items && items.length <= MAX_BATCH_REQUESTS) {
    items.forEach((item, index) => {
      const checked = checkGenerationRequest(item);
      if (checked.request) requests.push(checked.request);
      else
        for (const problem of checked.problems)
          problems.push({ pointer: `#/requests/${index}${problem.pointer.slice(1)}`, detail: `requests[${index}]: ${problem.detail}` });
    });
  }
  if (problems.length > 0) throw errors.validation(problems);
  const fields = value as { excludeDelivered?: boolean; maxCredits?: number; webhookUrl?: string; name?: string };
  const excludeDelivered = fields.excludeDelivered === true;
  return {
    requests: excludeDelivered ? requests.map((request) => ({ ...request, excludeDelivered: true })) : requests,
    excludeDelivered,
    maxCredits: fields.maxCredits ?? null,
    webhookUrl: fields.webhookUrl ?? null,
    name: fields.name ?? null,
  };
}

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
export const batchLeadsQuerySchema = Joi.object({
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

import Joi from 'joi';
import type { Endpoint } from '../../http/route-table';
import { hdr, idempotencyKeyParam, jsonAnswer, limited, listPage, pageAnswer, pick, ref } from '../../openapi/openapi-schemas';
import { batchPath } from '../path-params';
import { batchJobsQuerySchema, batchRequestSchema, listBatchesQuerySchema } from './batches-schema';
import { areaBatchSchema } from './area-schema';
import { batchJobsRoute, cancelBatchRoute, createBatchRoute, getBatchRoute, listBatchesRoute } from './batches-route';

// The batch endpoints under /api/v1 (docs/api.md#batches, decision 021); a batch's leads are in
// lead-listing-endpoints.ts with every other listing of leads.

// A batch of 1,000 requests, each up to a few KiB with LinkedIn filters: the batch route alone takes bodies this large.
const BATCH_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
/** A batch of requests, or an area search (`area` with `request`, or `quoteId`: decision 039), each validated by its schema. */
const batchBodySchema = Joi.alternatives()
  .conditional(Joi.object().or('area', 'quoteId').unknown(), { then: areaBatchSchema, otherwise: batchRequestSchema })
  .required();
const batchAnswer = (description: string) => jsonAnswer(description, ref('Batch'), { 'Retry-After': hdr('Retry-After') });
export const batchEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/v1/leads/batches',
    auth: 'key',
    scope: 'generate',
    rateLimit: { policy: 'generate', weight: '1: creating a batch counts as one generate call (decision 021)' },
    body: { limitBytes: BATCH_BODY_LIMIT_BYTES },
    request: { body: batchBodySchema },
    handler: createBatchRoute,
    operation: {
      tags: ['batches'],
      operationId: 'createBatch',
      summary: 'Start a batch of up to 1,000 generation requests',
      description:
        'Records the batch and one job per request (its children) and queues them; answers 202 at once with the batch body and `Location`. Each request is validated exactly as POST /leads/generate validates one (pointers like `#/requests/17/state`), every problem at once. Nothing is reserved up front: each child reserves its worst case as it starts, within `maxCredits`; 402 when the account cannot cover even the first child. A lead is delivered and billed at most once per batch. With `area` and `request` (or a quote’s `quoteId`) instead of `requests`, the batch is an area search: its children are the area’s tiles (docs/api.md#area-searches). The same `Idempotency-Key` with the same body answers the batch again (`Idempotent-Replayed: true`); with another body, 422.',
      parameters: [idempotencyKeyParam()],
      responses: {
        202: {
          ...batchAnswer('The batch, running: poll `Location` after `Retry-After`'),
          headers: {
            ...limited,
            Location: hdr('Location'),
            'Retry-After': hdr('Retry-After'),
            'Idempotent-Replayed': hdr('Idempotent-Replayed'),
          },
        },
        ...pick(402, 422),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/leads/batches',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { query: listBatchesQuerySchema },
    handler: listBatchesRoute,
    operation: {
      tags: ['batches'],
      operationId: 'listBatches',
      summary: "The account's batches, newest first",
      description: "A page of the account's batches, newest first; follow `nextCursor` (or `Link`) for the next page.",
      responses: {
        200: pageAnswer('A page of batch bodies', listPage("The page's batches", 'Batch')),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/leads/batches/{batchId}',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { params: batchPath },
    handler: getBatchRoute,
    operation: {
      tags: ['batches'],
      operationId: 'getBatch',
      summary: 'The batch',
      description: 'The batch body. While it runs, poll again after `Retry-After`; once terminal it never changes and carries `terminal`.',
      responses: { 200: batchAnswer('The batch body'), ...pick(400, 404) },
    },
  },
  {
    method: 'delete',
    path: '/api/v1/leads/batches/{batchId}',
    auth: 'key',
    scope: 'generate',
    rateLimit: { policy: 'read' },
    request: { params: batchPath },
    handler: cancelBatchRoute,
    operation: {
      tags: ['batches'],
      operationId: 'cancelBatch',
      summary: 'Cancel a running batch (idempotent)',
      description:
        'No child starts after this; every open child is cancelled as its own DELETE would cancel it (keeping and charging what it delivered), and the batch ends CANCELLED. Cancelling a cancelled batch answers it again; a batch that ended otherwise is 409.',
      responses: { 200: batchAnswer('The batch, now CANCELLED'), ...pick(400, 404, 409) },
    },
  },
  {
    method: 'get',
    path: '/api/v1/leads/batches/{batchId}/jobs',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { params: batchPath, query: batchJobsQuerySchema },
    handler: batchJobsRoute,
    operation: {
      tags: ['batches'],
      operationId: 'listBatchJobs',
      summary: "The batch's children, in request order",
      description: "A page of the batch's jobs (one per request, in the order of `requests`), each without `leads`.",
      responses: {
        200: pageAnswer('A page of job bodies without `leads`', listPage("The page's jobs", 'JobSummary')),
        ...pick(404),
      },
    },
  },
];

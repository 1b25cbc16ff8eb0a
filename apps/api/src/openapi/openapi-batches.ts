import { BATCH_STATUSES, MAX_BATCH_REQUESTS, TERMINAL_STATUSES } from '@leadgen/domain';
import { BATCHES_PAGE_DEFAULT, BATCHES_PAGE_LIMIT } from '../routes/leads/batches-schema';
import { type Schema, d, hdr, int, limited, listPage, nullable, object, pick, ref, str, time } from './openapi-schemas';

// Batches (docs/api.md#batches, decision 021): the operations and their schemas.

const query = (name: string, description: string, schema: Schema, extra: Schema = {}) => ({
  name,
  in: 'query',
  description,
  schema,
  ...extra,
});
export const batchIdParam = { name: 'batchId', in: 'path', required: true, description: 'The batch id (`bat_…`)', schema: str };
const batchAnswer = (description: string) => ({
  description,
  headers: { ...limited, 'Retry-After': hdr('Retry-After') },
  content: { 'application/json': { schema: ref('Batch') } },
});
const count = (description: string) => d(description, int());

export const batchSchemas = {
  BatchRequest: object(
    {
      requests: d(`The generation requests, 1..${MAX_BATCH_REQUESTS}, each exactly as POST /api/v1/leads/generate takes one`, {
        type: 'array',
        minItems: 1,
        maxItems: MAX_BATCH_REQUESTS,
        items: ref('GenerationRequestInput'),
      }),
      excludeDelivered: d('Skip leads the account received in any earlier job, for every child (default false)', { type: 'boolean' }),
      maxCredits: d('The most the batch may charge; a child starts only while its worst case still fits', {
        type: 'integer',
        minimum: 1,
        maximum: 2_147_483_647,
      }),
      webhookUrl: d("Where the batch's terminal event is POSTed, signed with the account's default webhook secret", {
        type: 'string',
        format: 'uri',
        maxLength: 2048,
      }),
      name: d('A label for the batch', { type: 'string', minLength: 1, maxLength: 200 }),
    },
    ['requests'],
    {
      description: 'A batch: up to 1,000 generation requests run as ordinary jobs, deduplicated across the batch',
      example: {
        name: 'Dentists, Texas',
        maxCredits: 2000,
        requests: [
          { category: 'dentist', state: 'US', city: 'Austin', maxResults: 25 },
          { category: 'dentist', state: 'US', city: 'Round Rock', maxResults: 25 },
        ],
      },
    },
  ),
  Batch: object(
    {
      batchId: d('The batch id (`bat_…`)', str),
      name: d('Its label', nullable(str)),
      pollUrl: d('Where to poll the batch (also `Location` of its creation)', str),
      status: d('running until every child is terminal, then its terminal status (docs/api.md#batches)', {
        type: 'string',
        enum: [...BATCH_STATUSES],
      }),
      childCount: count('How many children (one job per request)'),
      counts: d(
        'The children by status; they add up to childCount',
        object({
          queued: count('Not started yet'),
          running: count('Running now'),
          COMPLETE: count('Ended COMPLETE'),
          PARTIAL: count('Ended PARTIAL'),
          EMPTY: count('Ended EMPTY'),
          FAILED: count('Ended FAILED'),
          CANCELLED: count('Ended CANCELLED (by the owner, or stop reason batch_budget_exhausted)'),
        }),
      ),
      requestedCount: count("The sum of the children's maxResults"),
      deliveredCount: count('Leads delivered by the settled children, each at most once per batch'),
      creditsReserved: count('Held by the children running now; 0 once terminal'),
      creditsCharged: count('Charged for the settled children'),
      maxCredits: d('The cap the batch never charges past, or null (the account balance is the limit)', nullable(int(1))),
      excludeDelivered: d('Whether every child skips leads the account already had', { type: 'boolean' }),
      webhookUrl: d("Where the batch's terminal event goes, or null", nullable(str)),
      createdAt: d('When the batch was created', time),
      finishedAt: d('When its last child settled', nullable(time)),
      monitorId: d('The monitor whose run this batch is (a batch monitor, decision 022); absent for a batch asked for directly', str),
      terminal: d(
        'The outcome; present exactly when the status is terminal',
        object({
          status: d('The terminal status', { type: 'string', enum: [...TERMINAL_STATUSES] }),
          childCount: count('Children'),
          deliveredCount: count('Leads delivered'),
          creditsCharged: count('Credits charged'),
        }),
      ),
    },
    [
      'batchId',
      'name',
      'pollUrl',
      'status',
      'childCount',
      'counts',
      'requestedCount',
      'deliveredCount',
      'creditsReserved',
      'creditsCharged',
      'maxCredits',
      'excludeDelivered',
      'webhookUrl',
      'createdAt',
      'finishedAt',
    ],
    { description: "A batch body: its counters are kept by its children's settlements; `terminal` once every child is terminal" },
  ),
};

export const batchPaths = {
  '/api/v1/leads/batches': {
    post: {
      tags: ['batches'],
      operationId: 'createBatch',
      summary: 'Start a batch of up to 1,000 generation requests',
      description:
        'Records the batch and one job per request (its children) and queues them; answers 202 at once with the batch body and `Location`. Each request is validated exactly as POST /leads/generate validates one (pointers like `#/requests/17/state`), every problem at once. Nothing is reserved up front: each child reserves its worst case as it starts, within `maxCredits`; 402 when the account cannot cover even the first child. A lead is delivered and billed at most once per batch. The same `Idempotency-Key` with the same body answers the batch again (`Idempotent-Replayed: true`); with another body, 422.',
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description: '1..255 printable ASCII characters; `"abc"` and `abc` are one key. Remembered 24 h per account.',
          schema: { type: 'string', minLength: 1, maxLength: 257 },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref('BatchRequest') } } },
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
        ...pick(400, 401, 402, 405, 413, 415, 422, 429, 500, 503),
      },
    },
    get: {
      tags: ['batches'],
      operationId: 'listBatches',
      summary: "The account's batches, newest first",
      description: "A page of the account's batches, newest first; follow `nextCursor` (or `Link`) for the next page.",
      parameters: [
        query('limit', 'Batches per page', { type: 'integer', minimum: 1, maximum: BATCHES_PAGE_LIMIT, default: BATCHES_PAGE_DEFAULT }),
        query('cursor', "The previous page's `nextCursor` (opaque)", str),
        query(
          'status',
          'One or more statuses as a comma list (`status=running,PARTIAL`); repeating the parameter is accepted too',
          { type: 'array', minItems: 1, items: { type: 'string', enum: [...BATCH_STATUSES] } },
          { style: 'form', explode: false },
        ),
        query('createdAfter', 'Batches created at or after (RFC 3339, with an offset)', time),
        query('createdBefore', 'Batches created before (RFC 3339, with an offset)', time),
      ],
      responses: {
        200: {
          description: 'A page of batch bodies',
          headers: { ...limited, Link: hdr('Link') },
          content: {
            'application/json': {
              schema: listPage("The page's batches", 'Batch'),
            },
          },
        },
        ...pick(400, 401, 405, 429, 500, 503),
      },
    },
  },
  '/api/v1/leads/batches/{batchId}': {
    parameters: [batchIdParam],
    get: {
      tags: ['batches'],
      operationId: 'getBatch',
      summary: 'The batch',
      description: 'The batch body. While it runs, poll again after `Retry-After`; once terminal it never changes and carries `terminal`.',
      responses: { 200: batchAnswer('The batch body'), ...pick(400, 401, 404, 405, 429, 500, 503) },
    },
    delete: {
      tags: ['batches'],
      operationId: 'cancelBatch',
      summary: 'Cancel a running batch (idempotent)',
      description:
        'No child starts after this; every open child is cancelled as its own DELETE would cancel it (keeping and charging what it delivered), and the batch ends CANCELLED. Cancelling a cancelled batch answers it again; a batch that ended otherwise is 409.',
      responses: { 200: batchAnswer('The batch, now CANCELLED'), ...pick(400, 401, 404, 405, 409, 429, 500, 503) },
    },
  },
  '/api/v1/leads/batches/{batchId}/jobs': {
    parameters: [batchIdParam],
    get: {
      tags: ['batches'],
      operationId: 'listBatchJobs',
      summary: "The batch's children, in request order",
      description: "A page of the batch's jobs (one per request, in the order of `requests`), each without `leads`.",
      parameters: [
        query('limit', 'Jobs per page', { type: 'integer', minimum: 1, maximum: BATCHES_PAGE_LIMIT, default: BATCHES_PAGE_DEFAULT }),
        query('cursor', "The previous page's `nextCursor` (opaque)", str),
      ],
      responses: {
        200: {
          description: 'A page of job bodies without `leads`',
          headers: { ...limited, Link: hdr('Link') },
          content: {
            'application/json': {
              schema: listPage("The page's jobs", 'JobSummary'),
            },
          },
        },
        ...pick(400, 401, 404, 405, 429, 500, 503),
      },
    },
  },
};

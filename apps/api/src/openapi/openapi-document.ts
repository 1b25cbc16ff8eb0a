import { NON_TERMINAL_STATUSES, SOURCES, TERMINAL_STATUSES } from '@leadgen/domain';
import { LEADS_PAGE_DEFAULT, LEADS_PAGE_LIMIT } from '../routes/leads/leads-schema';
import { JOBS_PAGE_DEFAULT, JOBS_PAGE_LIMIT } from '../routes/leads/list-jobs-schema';
import {
  type Schema,
  PROBLEM_CODES,
  generationRequestSchema,
  ref,
  nullable,
  str,
  time,
  int,
  object,
  headers,
  hdr,
  limited,
  problemResponse,
  problems,
  pick,
  leadSchema,
  progress,
  openJob,
  finishedJob,
  leadItem,
} from './openapi-schemas';

import { webhookEvents, webhookPaths, webhookSchemas } from './openapi-webhooks';

export { PROBLEM_CODES } from './openapi-schemas';

const query = (name: string, description: string, schema: Schema, extra: Schema = {}) => ({ name, in: 'query', description, schema, ...extra });
const cursorParam = query('cursor', 'The previous page\'s `nextCursor` (opaque)', str);
const formatParam = query('format', 'Overrides Accept: `json` (pages), `csv` or `jsonl` (the whole selection streamed as a download)', {
  type: 'string',
  enum: ['json', 'csv', 'jsonl'],
});
const leadsLimit = query('limit', `Leads per JSON page (CSV and JSON Lines stream everything)`, {
  type: 'integer',
  minimum: 1,
  maximum: LEADS_PAGE_LIMIT,
  default: LEADS_PAGE_DEFAULT,
});
const rfc3339Param = (name: string, description: string) => query(name, `${description} (RFC 3339, with an offset)`, time);
const exportContent = (json: Schema) => ({
  'application/json': { schema: json },
  'text/csv': { schema: { type: 'string', description: 'RFC 4180, UTF-8, header row; columns in docs/api.md' } },
  'application/x-ndjson': { schema: { type: 'string', description: 'one LeadItem per line' } },
});
const exportHeaders = { ...limited, Link: hdr('Link'), 'Content-Disposition': hdr('Content-Disposition') };
const resultSetPage = object({
  jobId: str,
  resultSetId: str,
  status: { type: 'string', enum: [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES] },
  complete: { type: 'boolean', description: 'false while the job runs: the leads committed so far' },
  nextCursor: nullable(str),
  items: { type: 'array', items: ref('LeadItem') },
});
const resultSetResponses = {
  200: {
    description: 'The set\'s leads in delivery order',
    headers: { ...exportHeaders, 'Result-Complete': hdr('Result-Complete'), 'Job-Status': hdr('Job-Status') },
    content: exportContent(resultSetPage),
  },
  ...pick(400, 401, 404, 405, 429, 500, 503),
};

const jobAnswer = {
  description: 'The job body; `terminal` and `leads` exactly when the status is terminal, `Retry-After` while it is not',
  headers: { ...limited, 'Retry-After': hdr('Retry-After') },
  content: { 'application/json': { schema: ref('Job') } },
};
const jobIdParam = { name: 'jobId', in: 'path', required: true, schema: str, example: 'job_0123456789abcdefghijklmn' };

// Any path can meet the protocol-level problems (malformed_request, request_timeout, expectation_failed,
// headers_too_large, a 503): every operation documents them as its `default`, and takes an X-Request-Id.
const suppressionCounts = object({ domain: int(), email: int(), phone: int() });
const suppressionList = (description: string) => ({ type: 'array', maxItems: 100_000, items: { type: 'string', minLength: 1, maxLength: 320 }, description });
const suppressionLists = object(
  {
    domains: suppressionList('bare domains or URLs, any case (`www.` is dropped)'),
    emails: suppressionList('email addresses, any case'),
    phones: suppressionList('phone numbers in international form (+ and country code)'),
  },
  [],
  { minProperties: 1, description: 'At most 100,000 entries in one call; bodies up to 8 MiB on this route.' },
);

function withDefaultProblem(paths: Record<string, Record<string, unknown>>) {
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const op = operation as { responses: Record<string, unknown>; parameters?: unknown[] };
      op.responses.default = problemResponse('Any other problem, as Problem Details (see docs/errors.md for every code)');
      op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/RequestId' }];
    }
  }
  return paths;
}

/** The OpenAPI 3.1 document of the public API, served at GET /api/v1/openapi.json. */
export function openApiDocument(): Schema {
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'leadgen API',
      version: '1',
      description:
        'One durable job interface for lead generation from Google Maps, LinkedIn and Shopify. Errors are RFC 9457 Problem Details with a stable `code` (docs/errors.md); promises and conventions are in docs/api.md.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [{ name: 'jobs' }, { name: 'leads' }, { name: 'account' }, { name: 'webhooks' }, { name: 'meta' }],
    paths: {
      '/api/v1/leads/generate': {
        post: {
          tags: ['jobs'],
          operationId: 'generateLeads',
          summary: 'Start a job, waiting briefly for its end',
          parameters: [
            { name: 'Idempotency-Key', in: 'header', required: true, description: '1..255 printable ASCII characters; `"abc"` and `abc` are one key. Remembered 24 h per account.', schema: { type: 'string', minLength: 1, maxLength: 257 } },
            { name: 'Prefer', in: 'header', description: '`wait=N` (seconds, 0..60) or `respond-async`', schema: str },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('GenerationRequest') } } },
          responses: {
            200: { ...jobAnswer, description: 'The job ended within the wait: the terminal job body', headers: { ...limited, 'Idempotent-Replayed': hdr('Idempotent-Replayed'), 'Preference-Applied': hdr('Preference-Applied') } },
            202: {
              description: 'Still under way: poll `Location` after `Retry-After`',
              headers: { ...limited, Location: hdr('Location'), 'Retry-After': hdr('Retry-After'), 'Idempotent-Replayed': hdr('Idempotent-Replayed'), 'Preference-Applied': hdr('Preference-Applied') },
              content: { 'application/json': { schema: ref('Accepted') } },
            },
            ...pick(400, 401, 402, 405, 413, 415, 422, 429, 500, 503),
          },
        },
      },
      '/api/v1/leads/jobs': {
        get: {
          tags: ['jobs'],
          operationId: 'listJobs',
          summary: 'The account\'s jobs, newest first',
          parameters: [
            query('limit', 'Jobs per page', { type: 'integer', minimum: 1, maximum: JOBS_PAGE_LIMIT, default: JOBS_PAGE_DEFAULT }),
            cursorParam,
            query('status', 'One or more statuses, repeated or comma-separated', { type: 'array', items: { type: 'string', enum: [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES] } }, { style: 'form', explode: true }),
            query('source', 'Only jobs of this source', { type: 'string', enum: [...SOURCES] }),
            rfc3339Param('createdAfter', 'Jobs created at or after'),
            rfc3339Param('createdBefore', 'Jobs created before'),
          ],
          responses: {
            200: {
              description: 'A page of job bodies without `leads`',
              headers: { ...limited, Link: hdr('Link') },
              content: { 'application/json': { schema: object({ items: { type: 'array', items: ref('JobSummary') }, nextCursor: nullable(str) }) } },
            },
            ...pick(400, 401, 405, 429, 500, 503),
          },
        },
      },
      '/api/v1/leads/jobs/{jobId}': {
        parameters: [jobIdParam],
        get: { tags: ['jobs'], operationId: 'getJob', summary: 'The job', responses: { 200: jobAnswer, ...pick(400, 401, 404, 405, 429, 500, 503) } },
        delete: {
          tags: ['jobs'],
          operationId: 'cancelJob',
          summary: 'Cancel a queued or running job (idempotent)',
          responses: { 200: { ...jobAnswer, description: 'The job, now CANCELLED' }, ...pick(400, 401, 404, 405, 409, 429, 500, 503) },
        },
      },
      '/api/v1/leads/jobs/{jobId}/leads': {
        parameters: [jobIdParam],
        get: { tags: ['leads'], operationId: 'getJobLeads', summary: 'A job\'s leads (a running job\'s so far)', parameters: [leadsLimit, cursorParam, formatParam], responses: resultSetResponses },
      },
      '/api/v1/leads/result-sets/{resultSetId}': {
        parameters: [{ name: 'resultSetId', in: 'path', required: true, schema: str }],
        get: { tags: ['leads'], operationId: 'getResultSet', summary: 'A result set: the same answer as its job\'s leads', parameters: [leadsLimit, cursorParam, formatParam], responses: resultSetResponses },
      },
      '/api/v1/leads': {
        get: {
          tags: ['leads'],
          operationId: 'listLeads',
          summary: 'Every lead of the account: oldest job first, each job\'s in delivery order',
          parameters: [
            leadsLimit,
            cursorParam,
            formatParam,
            query('source', 'Only leads of jobs of this source', { type: 'string', enum: [...SOURCES] }),
            query('jobId', 'Only leads of this job', str),
            rfc3339Param('createdAfter', 'Leads of jobs created at or after'),
            rfc3339Param('createdBefore', 'Leads of jobs created before'),
          ],
          responses: {
            200: { description: 'A page of leads, or the whole selection as CSV or JSON Lines', headers: exportHeaders, content: exportContent(object({ nextCursor: nullable(str), items: { type: 'array', items: ref('LeadItem') } })) },
            ...pick(400, 401, 405, 429, 500, 503),
          },
        },
      },
      '/api/v1/account': {
        get: {
          tags: ['account'],
          operationId: 'getAccount',
          summary: 'The account and its credits',
          responses: {
            200: {
              description: 'Credits: balance (granted − charged), reserved by open jobs, available',
              headers: limited,
              content: { 'application/json': { schema: object({ accountId: str, name: str, credits: object({ balance: { type: 'integer' }, reserved: int(), available: { type: 'integer' } }) }) } },
            },
            ...pick(401, 405, 429, 500, 503),
          },
        },
      },
      '/api/v1/suppressions': {
        get: {
          tags: ['account'],
          operationId: 'listSuppressions',
          summary: 'The suppression list: counts, and entries in (kind, value) order',
          parameters: [
            { name: 'kind', in: 'query', schema: { type: 'string', enum: ['domain', 'email', 'phone'] } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
            { name: 'cursor', in: 'query', description: 'nextCursor of the previous page', schema: str },
          ],
          responses: {
            200: {
              description: 'A page of entries',
              headers: limited,
              content: {
                'application/json': {
                  schema: object({
                    counts: suppressionCounts,
                    items: { type: 'array', items: object({ kind: { type: 'string', enum: ['domain', 'email', 'phone'] }, value: str, createdAt: time }) },
                    nextCursor: nullable(str),
                  }),
                },
              },
            },
            ...pick(400, 401, 405, 429, 500, 503),
          },
        },
        put: {
          tags: ['account'],
          operationId: 'addSuppressions',
          summary: 'Adds entries: a lead matching one is never delivered nor billed, in any job (decision 014)',
          requestBody: { required: true, content: { 'application/json': { schema: suppressionLists } } },
          responses: {
            200: { description: 'How many were new, and the totals', headers: limited, content: { 'application/json': { schema: object({ added: int(), counts: suppressionCounts }) } } },
            ...pick(400, 401, 405, 413, 415, 429, 500, 503),
          },
        },
        delete: {
          tags: ['account'],
          operationId: 'removeSuppressions',
          summary: 'Removes the entries sent',
          requestBody: { required: true, content: { 'application/json': { schema: suppressionLists } } },
          responses: {
            200: { description: 'How many there were, and the totals', headers: limited, content: { 'application/json': { schema: object({ removed: int(), counts: suppressionCounts }) } } },
            ...pick(400, 401, 405, 413, 415, 429, 500, 503),
          },
        },
      },
      '/api/v1/meta/linkedin-countries': {
        get: {
          tags: ['meta'],
          operationId: 'getLinkedinCountries',
          security: [],
          summary: 'The governed list a linkedin `state` is checked against',
          responses: { 200: { description: 'The list', content: { 'application/json': { schema: object({ name: str, countries: { type: 'array', items: object({ code: str, name: str }) } }) } } } },
        },
      },
      '/api/v1/meta/tariffs': {
        get: {
          tags: ['meta'],
          operationId: 'getTariffs',
          security: [],
          summary: 'Credits per delivered item and minimum charge per job, per source',
          responses: {
            200: {
              description: 'The tariffs',
              content: { 'application/json': { schema: object({ tariffs: object(Object.fromEntries(SOURCES.map((s) => [s, object({ perItem: int(), minimum: int() })]))) }) } },
            },
          },
        },
      },
      '/healthz': {
        get: { tags: ['meta'], operationId: 'health', security: [], summary: 'Liveness', responses: { 200: { description: 'The process answers', content: { 'application/json': { schema: object({ status: { const: 'ok' } }) } } } } },
      },
      '/readyz': {
        get: {
          tags: ['meta'],
          operationId: 'ready',
          security: [],
          summary: 'Readiness: PostgreSQL answers with the schema migrated, Redis answers (for load balancers; not Problem Details)',
          responses: Object.fromEntries(
            [200, 503].map((status) => [
              status,
              {
                description: status === 200 ? 'Ready' : 'Not ready, or shutting down',
                content: { 'application/json': { schema: { type: 'object', required: ['status', 'checks'], properties: { status: str, checks: { type: 'object', additionalProperties: str }, detail: str } } } },
              },
            ]),
          ),
        },
      },
      '/api/v1/openapi.json': {
        get: { tags: ['meta'], operationId: 'getOpenApi', security: [], summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } } },
      },
      // Webhooks (decision 016): endpoints, deliveries, the default secret.
      ...webhookPaths,
    },
    // The events this service POSTs to an endpoint or a job's webhookUrl, signed as Standard Webhooks.
    webhooks: webhookEvents,
    components: {
      parameters: {
        RequestId: { name: 'X-Request-Id', in: 'header', description: 'Your id for the request, echoed in the answer and the logs when it is 1..128 of A-Z a-z 0-9 . _ : -; a new one is made otherwise', schema: str },
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer lg_live_…`' } },
      headers,
      responses: Object.fromEntries(Object.entries(problems).map(([status, response]) => [`Problem${status}`, response])),
      schemas: {
        GenerationRequest: generationRequestSchema(),
        Lead: leadSchema,
        LeadItem: leadItem,
        Job: { oneOf: [openJob, finishedJob(true)], description: 'A job body: `terminal` and `leads` exactly when the status is terminal, and then it never changes' },
        JobSummary: { oneOf: [openJob, finishedJob(false)], description: 'A job body without `leads` (job listings)' },
        ...webhookSchemas,
        Accepted: object({ jobId: str, resultSetId: str, pollUrl: str, status: { type: 'string', enum: [...NON_TERMINAL_STATUSES] }, progress }),
        Problem: {
          type: 'object',
          description: 'RFC 9457 Problem Details; `code` is stable, `type` is `urn:leadgen:problem:<code>` (or about:blank for internal_error)',
          required: ['type', 'title', 'status', 'detail', 'code'],
          properties: {
            type: str,
            title: str,
            status: { type: 'integer', minimum: 400, maximum: 599 },
            detail: str,
            code: { type: 'string', enum: [...PROBLEM_CODES] },
            requestId: str,
            errors: { type: 'array', items: object({ pointer: str, detail: str }), description: 'validation_failed: every problem, a JSON Pointer each' },
            required: { type: 'integer', description: 'insufficient_credits' },
            available: { type: 'integer', description: 'insufficient_credits' },
            jobStatus: { type: 'string', description: 'job_not_cancellable' },
          },
        },
      },
    },
  };
  withDefaultProblem(document.paths);
  return document;
}

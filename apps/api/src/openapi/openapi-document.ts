import { BATCH_STATUSES, NON_TERMINAL_STATUSES, SOURCES, TERMINAL_STATUSES } from '@leadgen/domain';
import { LEADS_PAGE_DEFAULT, LEADS_PAGE_LIMIT } from '../routes/leads/leads-schema';
import { JOBS_PAGE_DEFAULT, JOBS_PAGE_LIMIT } from '../routes/leads/list-jobs-schema';
import {
  listPage,
  type Schema,
  PROBLEM_CODES,
  generationRequestInputSchema,
  generationRequestSchema,
  d,
  jobUnion,
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

import { auditEventPaths, auditEventSchemas } from './openapi-audit-events';
import { emailVerificationSchema } from './email-verification-schema';
import { monitorEvents, monitorPaths, monitorSchemas } from './openapi-monitors';
import { received, signatureHeaders, webhookEvents, webhookPaths, webhookSchemas } from './openapi-webhooks';
import { batchIdParam, batchPaths, batchSchemas } from './openapi-batches';

export { PROBLEM_CODES } from './openapi-schemas';

const query = (name: string, description: string, schema: Schema, extra: Schema = {}) => ({
  name,
  in: 'query',
  description,
  schema,
  ...extra,
});
const cursorParam = query('cursor', "The previous page's `nextCursor` (opaque)", str);
const leadsLimit = query('limit', `Leads per JSON page (CSV and JSON Lines stream everything)`, {
  type: 'integer',
  minimum: 1,
  maximum: LEADS_PAGE_LIMIT,
  default: LEADS_PAGE_DEFAULT,
});
const rfc3339Param = (name: string, description: string) => query(name, `${description} (RFC 3339, with an offset)`, time);
const exportHeaders = { ...limited, Link: hdr('Link') };
const resultSetPage = object({
  jobId: d('The job', str),
  resultSetId: d('Its result set', str),
  status: d("The job's status when the page was read", { type: 'string', enum: [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES] }),
  complete: { type: 'boolean', description: 'false while the job runs: the leads committed so far' },
  nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
  items: d("The page's leads", { type: 'array', items: ref('LeadItem') }),
});
const setMarks = { 'Result-Complete': hdr('Result-Complete'), 'Job-Status': hdr('Job-Status') };
const legacyFormats =
  'Earlier clients may still ask this path for a download with `?format=csv` / `?format=jsonl` or `Accept: text/csv` / `Accept: application/x-ndjson`: the answer is then exactly that of the `.csv` / `.jsonl` operation. New code should call those operations.';

/**
 * A listing of leads as three operations, one media type each, so a generator types each answer: the
 * JSON page at `path`, and the whole selection streamed at `path.csv` and `path.jsonl`.
 */
function leadsOperations(
  path: string,
  base: {
    operationId: string;
    summary: string;
    description: string;
    parameters: unknown[];
    json: Schema;
    marks?: Record<string, unknown>;
    pathParameters?: unknown[];
    notFound?: boolean;
  },
) {
  // A job's own leads are gone once LEAD_RETENTION_DAYS has passed (410); the account's listing skips such jobs.
  const fault = base.notFound === false ? pick(400, 401, 405, 429, 500, 503) : pick(400, 401, 404, 405, 410, 429, 500, 503);
  const common = { tags: ['leads'], parameters: base.parameters };
  const download = (format: 'csv' | 'jsonl', media: string, body: string) => ({
    ...(base.pathParameters ? { parameters: base.pathParameters } : {}),
    get: {
      ...common,
      parameters: base.parameters.filter((p) => (p as { name?: string }).name !== 'limit'),
      operationId: `${base.operationId}${format === 'csv' ? 'Csv' : 'Jsonl'}`,
      summary: `${base.summary}, as ${format === 'csv' ? 'CSV' : 'JSON Lines'}`,
      description: `${base.description} The whole selection streamed as one download (from \`cursor\` when given); ${body}`,
      responses: {
        200: {
          description: `The leads as ${format === 'csv' ? 'CSV' : 'JSON Lines'}`,
          headers: { ...limited, 'Content-Disposition': hdr('Content-Disposition'), ...base.marks },
          content: { [media]: { schema: { type: 'string', description: body } } },
        },
        ...fault,
      },
    },
  });
  return {
    [path]: {
      ...(base.pathParameters ? { parameters: base.pathParameters } : {}),
      get: {
        ...common,
        operationId: base.operationId,
        summary: base.summary,
        description: `${base.description} A JSON page; follow \`nextCursor\` (or \`Link\`) for the next. ${legacyFormats}`,
        responses: {
          200: {
            description: 'A page of leads',
            headers: { ...exportHeaders, ...base.marks },
            content: { 'application/json': { schema: base.json } },
          },
          ...fault,
        },
      },
    },
    [`${path}.csv`]: download(
      'csv',
      'text/csv',
      'RFC 4180, UTF-8, a header row; the columns are listed in docs/api.md and never reordered.',
    ),
    [`${path}.jsonl`]: download('jsonl', 'application/x-ndjson', 'one LeadItem (JSON) per line.'),
  };
}

const jobAnswer = {
  description: 'The job body; `terminal` and `leads` exactly when the status is terminal, `Retry-After` while it is not',
  headers: { ...limited, 'Retry-After': hdr('Retry-After') },
  content: { 'application/json': { schema: ref('Job') } },
};
const jobIdParam = {
  name: 'jobId',
  in: 'path',
  required: true,
  description: 'The job id (`job_…`)',
  schema: str,
  example: 'job_0123456789abcdefghijklmn',
};
const resultSetIdParam = { name: 'resultSetId', in: 'path', required: true, description: 'The result set id (`rs_…`)', schema: str };

// Any path can meet the protocol-level problems (malformed_request, request_timeout, expectation_failed,
// headers_too_large, a 503): every operation documents them as its `default`, and takes an X-Request-Id.
const suppressionCounts = d(
  'How many entries of each kind the list holds',
  object({ domain: d('Domains', int()), email: d('Emails', int()), phone: d('Phones', int()) }),
);
const suppressionList = (description: string) => ({
  type: 'array',
  maxItems: 100_000,
  items: { type: 'string', minLength: 1, maxLength: 320 },
  description,
});
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
      // package.json says UNLICENSED (no licence granted), which SPDX has no identifier for: the url is npm's definition of it.
      license: { name: 'Proprietary (UNLICENSED)', url: 'https://docs.npmjs.com/cli/v11/configuring-npm/package-json#license' },
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'jobs', description: "Start a lead generation job, follow it, cancel it, list the account's jobs." },
      {
        name: 'batches',
        description: 'Up to 1,000 generation requests as one batch: deduplicated, capped by maxCredits, cancelled together.',
      },
      { name: 'leads', description: 'Read delivered leads as JSON pages, or download them as CSV or JSON Lines.' },
      { name: 'account', description: "The account's credits and its suppression list." },
      {
        name: 'webhooks',
        description: 'Endpoints that receive job events, their deliveries, and the signing secrets (Standard Webhooks).',
      },
      {
        name: 'monitors',
        description: 'Generation requests run on a schedule, each run delivering and billing only leads the account never had.',
      },
      { name: 'meta', description: 'Public reference data, health, and this document; no key needed.' },
    ],
    paths: {
      '/api/v1/leads/generate': {
        post: {
          tags: ['jobs'],
          operationId: 'generateLeads',
          summary: 'Start a job, waiting briefly for its end',
          description:
            'Reserves the credits and queues the job. With `Prefer: wait=N` (default 10 s, at most 60) the answer waits for the end: 200 with the terminal job, or 202 with where to poll. The same `Idempotency-Key` with the same body answers the first call again (`Idempotent-Replayed: true`); with another body, 422.',
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: true,
              description: '1..255 printable ASCII characters; `"abc"` and `abc` are one key. Remembered 24 h per account.',
              schema: { type: 'string', minLength: 1, maxLength: 257 },
            },
            { name: 'Prefer', in: 'header', description: '`wait=N` (seconds, 0..60) or `respond-async`', schema: str },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('GenerationRequestInput') } } },
          responses: {
            200: {
              ...jobAnswer,
              description: 'The job ended within the wait: the terminal job body',
              headers: { ...limited, 'Idempotent-Replayed': hdr('Idempotent-Replayed'), 'Preference-Applied': hdr('Preference-Applied') },
            },
            202: {
              description: 'Still under way: poll `Location` after `Retry-After`',
              headers: {
                ...limited,
                Location: hdr('Location'),
                'Retry-After': hdr('Retry-After'),
                'Idempotent-Replayed': hdr('Idempotent-Replayed'),
                'Preference-Applied': hdr('Preference-Applied'),
              },
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
          summary: "The account's jobs, newest first",
          description:
            "A page of the account's jobs, newest first, each without `leads`; follow `nextCursor` (or `Link`) for the next page.",
          parameters: [
            query('limit', 'Jobs per page', { type: 'integer', minimum: 1, maximum: JOBS_PAGE_LIMIT, default: JOBS_PAGE_DEFAULT }),
            cursorParam,
            // Declared as the comma list docs/api.md shows; the API parses a repeated parameter the same way.
            query(
              'status',
              'One or more statuses as a comma list (`status=COMPLETE,PARTIAL`); repeating the parameter (`status=COMPLETE&status=PARTIAL`) is accepted too',
              { type: 'array', minItems: 1, items: { type: 'string', enum: [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES] } },
              { style: 'form', explode: false },
            ),
            query('source', 'Only jobs of this source', { type: 'string', enum: [...SOURCES] }),
            rfc3339Param('createdAfter', 'Jobs created at or after'),
            rfc3339Param('createdBefore', 'Jobs created before'),
            query('batchId', 'Only the children of this batch (`bat_…`)', str),
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
            ...pick(400, 401, 405, 429, 500, 503),
          },
        },
      },
      '/api/v1/leads/jobs/{jobId}': {
        parameters: [jobIdParam],
        get: {
          tags: ['jobs'],
          operationId: 'getJob',
          summary: 'The job',
          description:
            'The job body. While it is queued or running, poll again after `Retry-After`; once terminal it never changes and carries `terminal` and `leads`.',
          responses: { 200: jobAnswer, ...pick(400, 401, 404, 405, 429, 500, 503) },
        },
        delete: {
          tags: ['jobs'],
          operationId: 'cancelJob',
          summary: 'Cancel a queued or running job (idempotent)',
          description:
            'Stops the job: it settles CANCELLED, keeping and charging the leads delivered so far. Cancelling a cancelled job answers it again; any other terminal job is 409.',
          responses: { 200: { ...jobAnswer, description: 'The job, now CANCELLED' }, ...pick(400, 401, 404, 405, 409, 429, 500, 503) },
        },
      },
      ...leadsOperations('/api/v1/leads/jobs/{jobId}/leads', {
        operationId: 'getJobLeads',
        summary: "A job's leads (a running job's so far)",
        description:
          "The leads of one job in delivery order; while the job runs, the ones committed so far (`Result-Complete: false`). Once the service's lead retention has passed, the job's leads are deleted and this answers 410 `leads_expired`.",
        pathParameters: [jobIdParam],
        parameters: [leadsLimit, cursorParam],
        json: resultSetPage,
        marks: setMarks,
      }),
      ...leadsOperations('/api/v1/leads/result-sets/{resultSetId}', {
        operationId: 'getResultSet',
        summary: "A result set: the same answer as its job's leads",
        description: "A result set by its id (the `resultSetId` of a job body): the same leads, in the same order, as its job's.",
        pathParameters: [resultSetIdParam],
        parameters: [leadsLimit, cursorParam],
        json: resultSetPage,
        marks: setMarks,
      }),
      ...leadsOperations('/api/v1/leads', {
        operationId: 'listLeads',
        summary: "Every lead of the account: oldest job first, each job's in delivery order",
        description: 'Every lead delivered to the account, across its jobs, narrowed by the filters.',
        parameters: [
          leadsLimit,
          cursorParam,
          query('source', 'Only leads of jobs of this source', { type: 'string', enum: [...SOURCES] }),
          query('jobId', 'Only leads of this job', str),
          rfc3339Param('createdAfter', 'Leads of jobs created at or after'),
          rfc3339Param('createdBefore', 'Leads of jobs created before'),
        ],
        json: object({
          nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
          items: d("The page's leads", { type: 'array', items: ref('LeadItem') }),
        }),
        notFound: false,
      }),
      '/api/v1/account': {
        get: {
          tags: ['account'],
          operationId: 'getAccount',
          summary: 'The account and its credits',
          description: "The account's name and credits: the balance, what open jobs hold, and what a new job may reserve.",
          responses: {
            200: {
              description: 'Credits: balance (granted − charged), reserved by open jobs, available',
              headers: limited,
              content: {
                'application/json': {
                  schema: object({
                    accountId: d('The account id', str),
                    name: d("The account's name", str),
                    credits: d(
                      "The account's credits",
                      object({
                        balance: d('Granted minus charged', { type: 'integer' }),
                        reserved: d('Held by open jobs', int()),
                        available: d('What a new job may reserve: balance minus reserved', { type: 'integer' }),
                      }),
                    ),
                  }),
                },
              },
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
          description: "A page of the account's suppression entries, with the count of each kind.",
          parameters: [
            query('kind', 'Only entries of this kind', { type: 'string', enum: ['domain', 'email', 'phone'] }),
            query('limit', 'Entries per page', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
            query('cursor', 'nextCursor of the previous page', str),
          ],
          responses: {
            200: {
              description: 'A page of entries',
              headers: limited,
              content: {
                'application/json': {
                  schema: object({
                    counts: suppressionCounts,
                    items: d("The page's entries", {
                      type: 'array',
                      items: object({
                        kind: d('What the value is', { type: 'string', enum: ['domain', 'email', 'phone'] }),
                        value: d('The normalised value', str),
                        createdAt: d('When it was added', time),
                      }),
                    }),
                    nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
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
          description:
            "Adds domains, emails and phones to the suppression list (normalised; entries already there are not counted again). Up to 100,000 entries a call, and up to the deployment's cap per account (1,000,000 by default); each 1,000 entries count as one more call in the `read` rate limit.",
          requestBody: { required: true, content: { 'application/json': { schema: suppressionLists } } },
          responses: {
            200: {
              description: 'How many were new, and the totals',
              headers: limited,
              content: { 'application/json': { schema: object({ added: d('Entries that were new', int()), counts: suppressionCounts }) } },
            },
            409: problemResponse(
              'suppression_limit: the account would hold more entries than SUPPRESSIONS_MAX_PER_ACCOUNT (`limit`, `held`)',
            ),
            ...pick(400, 401, 405, 413, 415, 429, 500, 503),
          },
        },
        delete: {
          tags: ['account'],
          operationId: 'removeSuppressions',
          summary: 'Removes the entries sent',
          description: 'Removes the entries sent from the suppression list; entries that were not there are ignored.',
          requestBody: { required: true, content: { 'application/json': { schema: suppressionLists } } },
          responses: {
            200: {
              description: 'How many there were, and the totals',
              headers: limited,
              content: {
                'application/json': { schema: object({ removed: d('Entries that were there', int()), counts: suppressionCounts }) },
              },
            },
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
          description: 'The countries a linkedin job may name in `state` (a code or the English name).',
          responses: {
            200: {
              description: 'The list',
              content: {
                'application/json': {
                  schema: object({
                    name: d("The list's name", str),
                    countries: d('Its countries', {
                      type: 'array',
                      items: object({ code: d('ISO 3166-1 alpha-2 code', str), name: d('English name', str) }),
                    }),
                  }),
                },
              },
            },
            ...pick(405),
          },
        },
      },
      '/api/v1/meta/shopify-categories': {
        get: {
          tags: ['meta'],
          operationId: 'getShopifyCategories',
          security: [],
          summary: 'The Store Leads category paths a shopify `category` is mapped onto',
          description:
            "Every top-level and second-level path of Store Leads' taxonomy (Google's content categories, Shopping's children raised to the top). A shopify `category` may be a path, its label or free text in several languages; free text naming none of them is refused with the three nearest paths.",
          responses: {
            200: {
              description: 'The taxonomy',
              content: {
                'application/json': {
                  schema: object({
                    retrieved: d('When the taxonomy was read from its sources (YYYY-MM-DD)', str),
                    categories: d('Its paths', {
                      type: 'array',
                      items: object({
                        path: d('The Store Leads path, as sent in `f:cat` and named on each lead as `store.categoryPath`', str),
                        name: d('Its last segment', str),
                        label: d('Its segments joined by " > "', str),
                        confirmed: d("Whether a Store Leads source shows the path as spelled (else it is derived from Google's list)", {
                          type: 'boolean',
                        }),
                        alsoSpelled: d('Other spellings accepted and also sent, where the exact one is not confirmed', {
                          type: 'array',
                          items: str,
                        }),
                      }),
                    }),
                  }),
                },
              },
            },
            ...pick(405),
          },
        },
      },
      '/api/v1/meta/tariffs': {
        get: {
          tags: ['meta'],
          operationId: 'getTariffs',
          security: [],
          summary: 'Credits per delivered item and minimum charge per job, per source',
          description:
            'What a job costs: a terminal job is charged `perItem` per delivered lead, and at least `minimum` when it delivered any.',
          responses: {
            200: {
              description: 'The tariffs',
              content: {
                'application/json': {
                  schema: object({
                    tariffs: d(
                      'One tariff per source',
                      object(
                        Object.fromEntries(
                          SOURCES.map((s) => [
                            s,
                            d(
                              `The ${s} tariff`,
                              object({ perItem: d('Credits per delivered lead', int()), minimum: d('Least charge of a job', int()) }),
                            ),
                          ]),
                        ),
                      ),
                    ),
                  }),
                },
              },
            },
            ...pick(405),
          },
        },
      },
      '/healthz': {
        get: {
          tags: ['meta'],
          operationId: 'health',
          security: [],
          summary: 'Liveness',
          description: 'Answers while the process runs, whatever the state of PostgreSQL and Redis.',
          responses: {
            200: {
              description: 'The process answers',
              content: { 'application/json': { schema: object({ status: d('Always `ok`', { const: 'ok' }) }) } },
            },
            ...pick(405),
          },
        },
      },
      '/readyz': {
        get: {
          tags: ['meta'],
          operationId: 'ready',
          security: [],
          summary:
            "Readiness: PostgreSQL answers with the schema migrated, Redis runs a script on each queue's own slot (for load balancers; not Problem Details)",
          description:
            "For load balancers: 200 when PostgreSQL answers with the schema migrated and Redis runs a script on each queue's own slot, 503 otherwise or while shutting down.",
          responses: {
            ...Object.fromEntries(
              [200, 503].map((status) => [
                status,
                {
                  description: status === 200 ? 'Ready' : 'Not ready, or shutting down',
                  content: {
                    'application/json': {
                      schema: object(
                        {
                          status: d('`ready`, or `unavailable` (then `checks` says which dependency)', str),
                          checks: d('Each dependency\'s state, e.g. `{"postgres":"ok","redis":"ok"}`', {
                            type: 'object',
                            additionalProperties: str,
                          }),
                          detail: d('What failed, when something did', str),
                        },
                        ['status', 'checks'],
                        { additionalProperties: true },
                      ),
                    },
                  },
                },
              ]),
            ),
            ...pick(405),
          },
        },
      },
      '/api/v1/openapi.json': {
        get: {
          tags: ['meta'],
          operationId: 'getOpenApi',
          security: [],
          summary: 'This document',
          description: 'The OpenAPI 3.1 document of this API (the one /docs shows).',
          responses: {
            200: {
              description: 'OpenAPI 3.1',
              content: {
                'application/json': {
                  schema: object(
                    {
                      openapi: d('The OpenAPI version, `3.1.0`', str),
                      info: d(
                        'Title, version, description, license',
                        object({ title: d("The API's name", str), version: d("The document's version", str) }, ['title', 'version'], {
                          additionalProperties: true,
                        }),
                      ),
                      paths: d('The operations, by path', { type: 'object', additionalProperties: { type: 'object' } }),
                      components: d('Schemas, parameters, responses and headers the paths refer to', { type: 'object' }),
                      webhooks: d('The events this service sends', { type: 'object' }),
                    },
                    ['openapi', 'info', 'paths'],
                    { additionalProperties: true },
                  ),
                },
              },
            },
            ...pick(405),
          },
        },
      },
      // Webhooks (decision 016): endpoints, deliveries, the default secret.
      ...batchPaths,
      ...leadsOperations('/api/v1/leads/batches/{batchId}/leads', {
        operationId: 'getBatchLeads',
        summary: "A batch's leads (a running batch's so far)",
        description:
          "The batch's leads across its children: children in request order, each one's leads in delivery order; while the batch runs, the ones committed so far (`Result-Complete: false`).",
        pathParameters: [batchIdParam],
        parameters: [leadsLimit, cursorParam],
        json: object({
          batchId: d('The batch', str),
          status: d("The batch's status when the page was read", { type: 'string', enum: [...BATCH_STATUSES] }),
          complete: { type: 'boolean', description: 'false while the batch runs: the leads committed so far' },
          nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
          items: d("The page's leads", { type: 'array', items: ref('LeadItem') }),
        }),
        marks: { 'Result-Complete': hdr('Result-Complete'), 'Batch-Status': hdr('Batch-Status') },
      }),
      ...webhookPaths,
      // The audit trail (decision 019).
      ...auditEventPaths,
      // Monitors (decision 022).
      ...monitorPaths,
    },
    // The events this service POSTs to an endpoint or a job's webhookUrl, signed as Standard Webhooks.
    webhooks: { ...webhookEvents, ...monitorEvents(signatureHeaders, received) },
    components: {
      parameters: {
        RequestId: {
          name: 'X-Request-Id',
          in: 'header',
          description:
            'Your id for the request, echoed in the answer and the logs when it is 1..128 of A-Z a-z 0-9 . _ : -; a new one is made otherwise',
          schema: str,
        },
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer lg_live_…`' } },
      headers,
      responses: Object.fromEntries(Object.entries(problems).map(([status, response]) => [`Problem${status}`, response])),
      schemas: {
        GenerationRequestInput: generationRequestInputSchema(),
        GenerationRequest: generationRequestSchema(),
        Lead: leadSchema,
        EmailVerification: emailVerificationSchema,
        LeadItem: leadItem,
        JobOpen: openJob,
        JobFinished: finishedJob(true),
        JobSummaryFinished: finishedJob(false),
        Job: jobUnion(
          'JobOpen',
          'JobFinished',
          'A job body: `terminal` and `leads` exactly when the status is terminal, and then it never changes',
        ),
        JobSummary: jobUnion('JobOpen', 'JobSummaryFinished', 'A job body without `leads` (job listings)'),
        ...webhookSchemas,
        ...auditEventSchemas,
        ...monitorSchemas,
        ...batchSchemas,
        Accepted: object(
          {
            jobId: d('The job id', str),
            resultSetId: d('Its result set', str),
            pollUrl: d('Where to poll it (also `Location`)', str),
            status: d('queued or running', { type: 'string', enum: [...NON_TERMINAL_STATUSES] }),
            progress: d('How far along it is', progress),
          },
          undefined,
          { description: 'A job still under way: the first fields of its job body' },
        ),
        Problem: {
          type: 'object',
          description:
            'RFC 9457 Problem Details; `code` is stable, `type` is `urn:leadgen:problem:<code>` (or about:blank for internal_error)',
          required: ['type', 'title', 'status', 'detail', 'code'],
          properties: {
            type: d('`urn:leadgen:problem:<code>`, or about:blank', str),
            title: d('A short summary of the problem kind', str),
            status: d('The HTTP status', { type: 'integer', minimum: 400, maximum: 599 }),
            detail: d('What went wrong in this request', str),
            code: d('The stable code to branch on (docs/errors.md)', { type: 'string', enum: [...PROBLEM_CODES] }),
            requestId: d('The request id; quote it to support', str),
            errors: {
              type: 'array',
              items: object({ pointer: d('A JSON Pointer into the body', str), detail: d('What is wrong there', str) }),
              description: 'validation_failed: every problem, a JSON Pointer each',
            },
            required: { type: 'integer', description: 'insufficient_credits' },
            available: { type: 'integer', description: 'insufficient_credits' },
            jobStatus: { type: 'string', description: 'job_not_cancellable' },
            limit: { type: 'integer', description: 'monitor_limit' },
            jobId: { type: 'string', description: 'monitor_run_in_progress: the run still going' },
            batchStatus: { type: 'string', description: 'batch_not_cancellable' },
          },
        },
      },
    },
  };
  withDefaultProblem(document.paths);
  return document;
}

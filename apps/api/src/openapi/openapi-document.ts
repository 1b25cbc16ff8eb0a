import { NON_TERMINAL_STATUSES } from '@leadgen/domain';
import { openApiPaths } from '../http/route-table';
import { ENDPOINTS } from '../routes/endpoints';
import { auditEventSchemas } from './openapi-audit-events';
import { emailVerificationSchema } from './email-verification-schema';
import { monitorEvents, monitorSchemas } from './openapi-monitors';
import { received, signatureHeaders, webhookEvents, webhookSchemas } from './openapi-webhooks';
import { batchSchemas } from './openapi-batches';
import { objectionEvents, objectionSchemas } from './openapi-objections';
import { keySchemas } from './openapi-keys';
import { linkDocs } from './served-docs';
import { areaSchemas } from './openapi-areas';
import {
  type Schema,
  PROBLEM_CODES,
  generationRequestInputSchema,
  generationRequestSchema,
  d,
  jobUnion,
  jobVariants,
  str,
  object,
  headers,
  problems,
  leadSchema,
  progress,
  openJob,
  finishedJob,
  leadItem,
} from './openapi-schemas';

export { PROBLEM_CODES } from './openapi-schemas';

/** The OpenAPI 3.1 document of the public API, served at GET /api/v1/openapi.json; its docs references link to /docs/…. */
export function openApiDocument(): Schema {
  return linkDocs(document());
}

function document(): Schema {
  // The request bodies' components, derived from the Joi schemas the route table validates them with.
  const requestBodies: Record<string, Schema> = {};
  const paths = openApiPaths(ENDPOINTS, requestBodies);
  return {
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
      { name: 'account', description: "The account's credits, its ledger and usage, its suppression list and audit trail." },
      { name: 'keys', description: "The account's API keys: scopes, test keys (`lg_test_…`), expiry and revocation." },
      {
        name: 'webhooks',
        description: 'Endpoints that receive job events, their deliveries, and the signing secrets (Standard Webhooks).',
      },
      {
        name: 'monitors',
        description: 'Generation requests run on a schedule, each run delivering and billing only leads the account never had.',
      },
      {
        name: 'privacy',
        description:
          'Objections by the people in the leads (no key: they have none), and the notices each account gets of those it received.',
      },
      { name: 'meta', description: 'Public reference data, health, and this document; no key needed.' },
    ],
    // Every operation, from the endpoints' one declaration each (routes/endpoints.ts).
    paths,
    // The events this service POSTs to an endpoint or a job's webhookUrl, signed as Standard Webhooks.
    webhooks: { ...webhookEvents, ...monitorEvents(signatureHeaders, received), ...objectionEvents(signatureHeaders, received) },
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
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key: `Authorization: Bearer lg_live_…` (or `lg_test_…`). Each operation lists the one scope it needs; a key without it gets 403 `insufficient_scope`.',
        },
      },
      headers,
      responses: Object.fromEntries(Object.entries(problems).map(([status, response]) => [`Problem${status}`, response])),
      schemas: {
        ...requestBodies,
        GenerationRequestInput: generationRequestInputSchema(),
        GenerationRequest: generationRequestSchema(),
        Lead: leadSchema,
        EmailVerification: emailVerificationSchema,
        LeadItem: leadItem,
        JobOpen: openJob,
        JobFinished: finishedJob(true),
        JobSummaryFinished: finishedJob(false),
        ...jobVariants('Job', 'JobOpen', 'JobFinished'),
        ...jobVariants('JobSummary', 'JobOpen', 'JobSummaryFinished'),
        Job: jobUnion('Job', 'A job body: `terminal` and `leads` exactly when the status is terminal, and then it never changes'),
        JobSummary: jobUnion('JobSummary', 'A job body without `leads` (job listings)'),
        ...webhookSchemas,
        ...auditEventSchemas,
        ...monitorSchemas,
        ...batchSchemas,
        ...objectionSchemas,
        ...keySchemas,
        ...areaSchemas,
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
}

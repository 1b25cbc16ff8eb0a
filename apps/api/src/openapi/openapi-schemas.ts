import parseJoi from 'joi-to-json';
import { MAX_RESULTS_DEFAULT, NON_TERMINAL_STATUSES, SOURCES, TERMINAL_STATUSES } from '@leadgen/domain';

// The OpenAPI document's building blocks: schemas of the bodies, headers, Problem responses.
import { generateRequestSchema } from '../routes/leads/generate-schema';

export type Schema = Record<string, unknown>;

/** Every `code` of docs/errors.md (a test keeps the two equal). */
export const PROBLEM_CODES = [
  'validation_failed', 'malformed_json', 'malformed_path', 'malformed_request', 'idempotency_key_missing', 'idempotency_key_invalid',
  'unauthorized', 'insufficient_credits', 'job_not_found', 'not_found', 'method_not_allowed', 'request_timeout', 'job_not_cancellable',
  'payload_too_large', 'unsupported_media_type', 'unsupported_content_encoding', 'expectation_failed',
  'idempotency_key_reused', 'rate_limited', 'headers_too_large', 'internal_error', 'service_unavailable',
  // webhooks (decision 016)
  'webhook_endpoint_not_found', 'webhook_delivery_not_found', 'webhook_endpoint_limit', 'webhook_endpoint_disabled', 'webhook_delivery_pending',
  'webhook_secret_already_revealed',
] as const;

/**
 * joi-to-json writes a Joi `when` as `oneOf` of its branches under a type that allows anything; two
 * branches that both accept a string (state: linkedin list or ISO code) would then fail `oneOf`. The
 * branches are alternatives, so `anyOf` says what Joi does; the catch-all type is dropped.
 */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  const source = node as Schema;
  for (const [key, value] of Object.entries(source)) {
    if (key === 'type' && Array.isArray(value) && value.length === 6 && source.oneOf) continue;
    out[key === 'oneOf' ? 'anyOf' : key] = tidy(value);
  }
  return out;
}

/** The generation request, derived from the Joi schema that validates it, so the two cannot drift. */
export function generationRequestSchema(): Schema {
  const derived = tidy(parseJoi(generateRequestSchema, 'open-api-3.1')) as Schema;
  return {
    ...derived,
    description:
      'What to search for; every problem is reported at once (400 validation_failed). Unknown fields and fields of another source are refused. `state`: ISO 3166-1 alpha-2 (any case); for linkedin a code or English name from GET /api/v1/meta/linkedin-countries. `linkedinParams` only with source linkedin; `decisionMakerTitles` and `requiredChannels` only with source shopify.',
    example: { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: MAX_RESULTS_DEFAULT },
  };
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: Schema) => ({ anyOf: [schema, { type: 'null' }] });
export const str = { type: 'string' };
export const time = { type: 'string', format: 'date-time' };
export const int = (minimum = 0) => ({ type: 'integer', minimum });
export const object = (properties: Record<string, unknown>, required = Object.keys(properties), extra: Schema = {}) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
  ...extra,
});

export const header = (description: string, schema: Schema = str) => ({ description, schema });
export const headers = {
  'X-Request-Id': header('The request id: yours echoed when sane, else a new one. Quote it to support.'),
  RateLimitPolicy: header('IETF RateLimit-Policy of the endpoint\'s policy, e.g. `"read";q=1200;w=60`'),
  RateLimit: header('IETF RateLimit: `r` requests left in the window, `t` seconds to its reset'),
  'Retry-After': header('Seconds to wait before asking again', { type: 'integer' }),
  Location: header('Where to poll the job'),
  'Idempotent-Replayed': header('`true` when this is the answer of an earlier call with the same Idempotency-Key', { type: 'string', enum: ['true'] }),
  'Preference-Applied': header('Which `Prefer` preference was honoured (`wait=N` or `respond-async`)'),
  Link: header('`<url>; rel="next"`: the next page, while there is one'),
  'Content-Disposition': header('`attachment; filename="leads-….csv"` (or `.jsonl`)'),
  'Result-Complete': header('`false` while the job runs: the leads so far', { type: 'string', enum: ['true', 'false'] }),
  'Job-Status': header('The job\'s status when the answer was read', { type: 'string', enum: [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES] }),
  'WWW-Authenticate': header('`Bearer realm="leadgen"`'),
  Allow: header('The methods the path supports'),
};
export const hdr = (name: keyof typeof headers) => ({ $ref: `#/components/headers/${name}` });
export const limited = { 'X-Request-Id': hdr('X-Request-Id'), 'RateLimit-Policy': hdr('RateLimitPolicy'), RateLimit: hdr('RateLimit') };

export const problemResponse = (description: string, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: { 'X-Request-Id': hdr('X-Request-Id'), ...extraHeaders },
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
export const problems = {
  400: problemResponse('validation_failed (with `errors`), malformed_json, malformed_path, malformed_request, idempotency_key_missing, idempotency_key_invalid'),
  401: problemResponse('unauthorized: missing, malformed, unknown, revoked or expired key', { 'WWW-Authenticate': hdr('WWW-Authenticate') }),
  402: problemResponse('insufficient_credits, with `required` and `available`'),
  404: problemResponse('job_not_found (also another account\'s job), not_found'),
  405: problemResponse('method_not_allowed', { Allow: hdr('Allow') }),
  409: problemResponse('job_not_cancellable (with `jobStatus`)'),
  413: problemResponse('payload_too_large'),
  415: problemResponse('unsupported_media_type, unsupported_content_encoding'),
  422: problemResponse('idempotency_key_reused'),
  429: problemResponse('rate_limited', { 'Retry-After': hdr('Retry-After'), ...limited }),
  500: problemResponse('internal_error'),
  503: problemResponse('service_unavailable', { 'Retry-After': hdr('Retry-After') }),
};
export const pick = (...codes: Array<keyof typeof problems>) => Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/responses/Problem${c}` }]));

export const leadSchema = object(
  {
    source: { type: 'string', enum: [...SOURCES] },
    businessName: str,
    email: nullable(str),
    phone: nullable(str),
    address: nullable(str),
    website: nullable(str),
    reviewScore: nullable({ type: 'number' }),
    categories: { type: 'array', items: str },
    socialProfiles: object({ facebook: nullable(str), instagram: nullable(str), linkedin: nullable(str) }),
    person: object({ fullName: str, title: nullable(str), seniority: nullable(str), linkedinUrl: str, location: nullable(str) }),
    store: object({ domain: str, country: nullable(str), platform: str, categoryPath: nullable(str) }, ['domain', 'country', 'platform']),
    enrichment: object(
      {
        emailSource: nullable(str),
        emailBasis: nullable(str),
        profileSources: object({ facebook: nullable(str), instagram: nullable(str), linkedin: nullable(str) }),
        pagesVisited: int(),
      },
      undefined,
      { description: 'where an enriched lead\'s email and profiles were found (decision 015)' },
    ),
    contacts: {
      type: 'array',
      items: object({ name: nullable(str), title: nullable(str), email: nullable(str), phone: nullable(str), linkedinUrl: nullable(str) }),
    },
  },
  ['source', 'businessName', 'email', 'phone', 'address', 'website', 'reviewScore', 'categories', 'socialProfiles'],
  { description: 'The common record for every source; `person` for linkedin, `store` and `contacts` for shopify.' },
);

export const progress = object({ requestedCount: int(1), deliveredCount: int() });
export const jobCommon = {
  jobId: str,
  resultSetId: str,
  pollUrl: str,
  source: { type: 'string', enum: [...SOURCES] },
  provider: nullable(str),
  request: { ...ref('GenerationRequest'), description: 'the normalised generation request (defaults filled in)' },
  progress,
  createdAt: time,
  startedAt: nullable(time),
  finishedAt: nullable(time),
  creditsReserved: { ...int(), description: 'held until the job settles; 0 once terminal' },
  creditsCharged: nullable(int()),
  skipped: {
    ...object({ alreadyDelivered: int(), suppressed: int() }),
    description: 'leads passed over and not billed: ones the account already had (with excludeDelivered) and ones on its suppression list (decision 014)',
  },
};
export const terminalObject = object({
  status: { type: 'string', enum: [...TERMINAL_STATUSES] },
  requestedCount: int(1),
  deliveredCount: int(),
  resultSetId: str,
  stopReason: nullable({ type: 'string', enum: ['source_exhausted', 'no_results', 'provider_error', 'provider_unauthorized', 'timeout', 'internal_error', 'cancelled_by_owner'] }),
});
export const openJob = object({ ...jobCommon, status: { type: 'string', enum: [...NON_TERMINAL_STATUSES] } }, undefined, { title: 'Job (queued or running)' });
export const finishedJob = (withLeads: boolean) =>
  object(
    {
      ...jobCommon,
      status: { type: 'string', enum: [...TERMINAL_STATUSES] },
      terminal: terminalObject,
      ...(withLeads ? { leads: { type: 'array', items: ref('Lead') } } : {}),
    },
    undefined,
    { title: `Job (terminal${withLeads ? '' : ', without leads'})` },
  );

export const leadItem = object(
  { jobId: str, resultSetId: str, position: int(), deliveredAt: time, lead: ref('Lead') },
  undefined,
  { description: 'A delivered lead and where it belongs; `lead` is the record of the job body.' },
);

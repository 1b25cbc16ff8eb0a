import { DEFAULT_SOURCE, MAX_RESULTS_DEFAULT, NON_TERMINAL_STATUSES, SOURCES, TERMINAL_STATUSES } from '@leadgen/domain';

// The OpenAPI document's building blocks: schemas of the bodies, headers, Problem responses.
import { generateRequestSchema } from '../routes/leads/generate-schema';
import { joiToOpenApi } from './joi-schema';

export type Schema = Record<string, unknown>;

/** Every `code` of docs/errors.md (a test keeps the two equal). */
export const PROBLEM_CODES = [
  'validation_failed',
  'malformed_json',
  'malformed_path',
  'malformed_request',
  'idempotency_key_missing',
  'idempotency_key_invalid',
  'unauthorized',
  'insufficient_credits',
  'job_not_found',
  'not_found',
  'leads_expired',
  'method_not_allowed',
  'request_timeout',
  'job_not_cancellable',
  'batch_not_found',
  'batch_not_cancellable',
  'payload_too_large',
  'unsupported_media_type',
  'unsupported_content_encoding',
  'expectation_failed',
  'idempotency_key_reused',
  'rate_limited',
  'too_many_in_flight',
  'headers_too_large',
  'internal_error',
  'service_unavailable',
  // webhooks (decision 016)
  'webhook_endpoint_not_found',
  'webhook_delivery_not_found',
  'webhook_endpoint_limit',
  'webhook_endpoint_disabled',
  'webhook_delivery_pending',
  'webhook_secret_already_revealed',
  // monitors (decision 022)
  'monitor_not_found',
  'monitor_limit',
  'monitor_run_in_progress',
  // abuse resistance (decision 027)
  'suppression_limit',
  // objections by the data subjects (decision 042)
  'objection_not_found',
  'objection_not_proven',
  // keys managed over the API (decision 036)
  'insufficient_scope',
  'scope_not_held',
  'test_mode_unsupported',
  'api_key_not_found',
  'api_key_limit',
  // area searches (decision 039)
  'quote_not_found',
  'quote_expired',
  'area_place_not_found',
  'area_too_large',
  'area_empty',
] as const;

const ISO_CODE = '^\\s*[A-Za-z]{2}\\s*$';
// Three letters at least, so a string matches exactly one of the two branches.
const COUNTRY_NAME = "^\\s*[A-Za-z][A-Za-z .'-]+[A-Za-z]\\s*$";
const countryInput = (description: string) => ({
  description,
  oneOf: [
    { type: 'string', pattern: ISO_CODE, title: 'ISO 3166-1 alpha-2 code', description: 'Any case, e.g. `US` or `de`.' },
    {
      type: 'string',
      pattern: COUNTRY_NAME,
      maxLength: 100,
      title: 'LinkedIn country name',
      description: 'Source linkedin only: an English name from GET /api/v1/meta/linkedin-countries.',
    },
  ],
});
const onlyWithSource = (source: string) => ({ properties: { source: { const: source } }, required: ['source'] });

/** One line per field a client may send (the Joi schema in routes/leads/generate-schema.ts validates them). */
const REQUEST_FIELDS: Record<string, string> = {
  source: `Which source to search. Default: \`${DEFAULT_SOURCE}\`.`,
  category: 'The business type or professional category, e.g. `dentist`.',
  state: 'The country: an ISO 3166-1 alpha-2 code; with source linkedin also an English name from GET /api/v1/meta/linkedin-countries.',
  city: 'A city name; narrows the search.',
  keyword: "An additional keyword filter; `sandbox:…` steers a sandbox key's job (docs/api.md).",
  maxResults: `How many leads at most, never clamped. Default: ${MAX_RESULTS_DEFAULT}.`,
  excludeDelivered: 'Skip (neither deliver nor bill) leads this account received in any earlier job. Default: false.',
  webhookUrl: "Where this job's terminal event is also POSTed, signed with the account's default webhook secret.",
  linkedinParams: 'Structured LinkedIn filters (source linkedin only).',
  decisionMakerTitles: 'Shopify contact roles to keep (source shopify only).',
  requiredChannels: 'Shopify stores must have each of these channels (source shopify only).',
  filters:
    "What not to deliver (nor bill), with the fields of the request's source: a lead that fails one is counted in `skipped.filtered` and the job pages on (decision 038).",
};
const FILTER_FIELDS: Record<string, string> = {
  minRating: "google_maps: Google's average rating at least this (0..5).",
  minReviewCount: "google_maps: Google's review count at least this.",
  priceLevels: "google_maps: Google's price level one of these.",
  requireWebsite: 'google_maps: only places with a website.',
  requirePhone: 'Only leads with a phone.',
  requireEmail: 'Only leads with an email (google_maps: from Google or the website; after verification).',
  includeClosed: 'google_maps: deliver temporarily closed places too (a permanently closed one never is).',
  minEstimatedSales: "shopify: Store Leads' estimated monthly sales at least this, in US cents.",
  maxEstimatedSales: 'shopify: estimated monthly sales at most this, in US cents.',
  technologies: 'shopify: the store uses any of these technologies (case-insensitive).',
  apps: 'shopify: the store has any of these apps installed (case-insensitive).',
  createdAfter: 'shopify: the store was created on or after this date (YYYY-MM-DD).',
  minProductCount: 'shopify: the store lists at least this many products.',
};

/** Each source's branch of `filters`, titled by its source and with a line per field. */
function describeFilters(schema: Schema): Schema {
  const branches = (schema.anyOf as Array<Schema & { properties: Schema }> | undefined) ?? [];
  const titleOf = (branch: { properties: Schema }) =>
    'minRating' in branch.properties
      ? 'GoogleMapsFilters'
      : 'minEstimatedSales' in branch.properties
        ? 'ShopifyFilters'
        : 'LinkedinFilters';
  return {
    ...schema,
    anyOf: branches.map((branch) => ({ ...branch, title: titleOf(branch), properties: describe(branch.properties, FILTER_FIELDS) })),
  };
}
const LINKEDIN_FIELDS: Record<string, string> = {
  title: 'Job title(s).',
  seniority: 'Seniority levels.',
  industry: 'Industry or industries.',
  companySize: 'Company headcount bands.',
  country: 'The country, as `state`.',
};

const describe = (properties: Schema, lines: Record<string, string>) =>
  Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, { ...(schema as Schema), description: lines[name] }]));

/**
 * What a client may send to POST /api/v1/leads/generate, derived from the Joi schema that validates it
 * so the two cannot drift. No `default` keywords: a generator would make those fields required in the
 * body (openapi-typescript does by default); the defaults are in the descriptions.
 */
export function generationRequestInputSchema(): Schema {
  const { 'x-component': _name, ...derived } = joiToOpenApi(generateRequestSchema) as Schema & { properties: Record<string, Schema> };
  const properties = { ...derived.properties };
  const linkedin = properties.linkedinParams as Schema & { properties: Record<string, Schema> };
  properties.linkedinParams = { ...linkedin, properties: describe({ ...linkedin.properties, country: countryInput('') }, LINKEDIN_FIELDS) };
  properties.state = countryInput('');
  properties.filters = describeFilters(properties.filters as Schema);
  return {
    ...derived,
    title: 'GenerationRequestInput',
    properties: describe(properties, REQUEST_FIELDS),
    dependentSchemas: {
      linkedinParams: onlyWithSource('linkedin'),
      decisionMakerTitles: onlyWithSource('shopify'),
      requiredChannels: onlyWithSource('shopify'),
    },
    description:
      'What to search for; every problem is reported at once (400 validation_failed). Unknown fields and fields of another source are refused. `linkedinParams` only with source linkedin; `decisionMakerTitles` and `requiredChannels` only with source shopify.',
    example: { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: MAX_RESULTS_DEFAULT },
  };
}

const code = { type: 'string', pattern: '^[A-Z]{2}$' };
/** The normalised request a job reports: defaults filled in, `state` an upper-case code, titles as arrays. */
export function generationRequestSchema(): Schema {
  const input = generationRequestInputSchema() as { properties: Record<string, Schema> };
  const list = (schema: unknown) => ((schema as Schema).anyOf as Schema[])[0];
  const linkedin = input.properties.linkedinParams as { properties: Record<string, Schema> };
  const strict = (schema: Schema) =>
    Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'minLength' && key !== 'maxLength'));
  return object(
    describe(
      {
        ...input.properties,
        source: { type: 'string', enum: [...SOURCES] },
        state: code,
        maxResults: strict(input.properties.maxResults as Schema),
        excludeDelivered: { const: true },
        linkedinParams: object(
          describe(
            { ...linkedin.properties, title: list(linkedin.properties.title), industry: list(linkedin.properties.industry), country: code },
            LINKEDIN_FIELDS,
          ),
          [],
        ),
      },
      {
        ...REQUEST_FIELDS,
        state: "The country's ISO 3166-1 alpha-2 code, upper case.",
        excludeDelivered: 'Present (true) exactly when the job skips leads the account already had.',
      },
    ),
    ['source', 'category', 'state', 'maxResults'],
    {
      title: 'GenerationRequest',
      description:
        'The normalised generation request a job reports: defaults filled in, `state` an upper-case code, LinkedIn titles and industries as arrays.',
    },
  );
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
  Location: header('Where to poll the job (or the batch)'),
  'Idempotent-Replayed': header('`true` when this is the answer of an earlier call with the same Idempotency-Key', {
    type: 'string',
    enum: ['true'],
  }),
  'Preference-Applied': header('Which `Prefer` preference was honoured (`wait=N` or `respond-async`)'),
  Link: header('`<url>; rel="next"`: the next page, while there is one'),
  'Content-Disposition': header('`attachment; filename="leads-….csv"` (or `.jsonl`)'),
  'Result-Complete': header('`false` while the job runs: the leads so far', { type: 'string', enum: ['true', 'false'] }),
  'Job-Status': header("The job's status when the answer was read", {
    type: 'string',
    enum: [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES],
  }),
  'Batch-Status': header("The batch's status when the answer was read", {
    type: 'string',
    enum: ['running', ...TERMINAL_STATUSES],
  }),
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
  400: problemResponse(
    'validation_failed (with `errors`), malformed_json, malformed_path, malformed_request, idempotency_key_missing, idempotency_key_invalid',
  ),
  401: problemResponse('unauthorized: missing, malformed, unknown, revoked or expired key', {
    'WWW-Authenticate': hdr('WWW-Authenticate'),
  }),
  402: problemResponse('insufficient_credits, with `required` and `available`'),
  404: problemResponse("job_not_found (also another account's job), not_found"),
  405: problemResponse('method_not_allowed', { Allow: hdr('Allow') }),
  409: problemResponse('job_not_cancellable (with `jobStatus`), monitor_limit (with `limit`), monitor_run_in_progress (with `jobId`)'),
  410: problemResponse(
    "leads_expired (with `leadsExpiredAt`): the job's leads were deleted under the lead retention policy; the job remains",
  ),
  413: problemResponse('payload_too_large'),
  415: problemResponse('unsupported_media_type, unsupported_content_encoding'),
  422: problemResponse('idempotency_key_reused'),
  429: problemResponse(
    "rate_limited (a rate-limit window), too_many_in_flight (with `limit`: the account's requests in progress at once, API_IN_FLIGHT_PER_ACCOUNT)",
    { 'Retry-After': hdr('Retry-After'), ...limited },
  ),
  500: problemResponse('internal_error'),
  503: problemResponse('service_unavailable', { 'Retry-After': hdr('Retry-After') }),
};
export const pick = (...codes: Array<keyof typeof problems>) =>
  Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/responses/Problem${c}` }]));

/** A schema with its one-line description (every property a consumer reads has one). */
export const d = (description: string, schema: Schema) => ({ ...schema, description });

/** A keyset page of a listing: its items (of the named component schema) and the cursor of the next page. */
export const listPage = (itemsDescription: string, item: string) =>
  object({
    items: d(itemsDescription, { type: 'array', items: ref(item) }),
    nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
  });
const sources = { type: 'string', enum: [...SOURCES] };
const profiles = (what: string) =>
  object({
    facebook: d(`Facebook ${what}`, nullable(str)),
    instagram: d(`Instagram ${what}`, nullable(str)),
    linkedin: d(`LinkedIn ${what}`, nullable(str)),
  });

const num = { type: 'number' };
const strings = { type: 'array', items: str };
// Decision 038: where each contact value came from and when.
const valueSource = nullable(
  object(
    {
      origin: d('`upstream`: the source answered it; `website`: read from the business’s own site', {
        type: 'string',
        enum: ['upstream', 'website'],
      }),
      upstream: d('The provider that answered (the job’s `provider`); null for a website value', nullable(str)),
      sourceUrl: d(
        'The exact page the value was read on, or the upstream’s own page of the record; null when there is none',
        nullable(str),
      ),
      basis: d('Website values: why the value is taken as the business’s', nullable(str)),
      retrievedAt: d('When the upstream answered or the page was read', time),
    },
    ['origin', 'upstream', 'sourceUrl', 'retrievedAt'],
  ),
);
const provenanceSchema = object(
  {
    email: { ...valueSource, description: 'Where `email` came from; null when it is null' },
    phone: { ...valueSource, description: 'Where `phone` came from' },
    website: { ...valueSource, description: 'Where `website` came from' },
    socialProfiles: d(
      'Where each profile came from',
      object({
        facebook: d('Where the Facebook profile came from', valueSource),
        instagram: d('Where the Instagram profile came from', valueSource),
        linkedin: d('Where the LinkedIn profile came from', valueSource),
      }),
    ),
  },
  undefined,
  { description: 'Where each contact value came from and when (decision 038); absent on leads delivered before it' },
);
const point = object({ day: d('0 = Sunday .. 6 = Saturday', int()), hour: d('Hour, local time', int()), minute: d('Minute', int()) });
const placeSchema = object(
  {
    placeId: d('Google’s place id: the lead’s dedup key', str),
    location: d('Coordinates', nullable(object({ lat: d('Latitude', num), lng: d('Longitude', num) }))),
    addressComponents: d(
      'The address split (Google’s addressComponents)',
      nullable(
        object({
          street: d('Street number and route', nullable(str)),
          locality: d('City or town', nullable(str)),
          postalCode: d('Postal code', nullable(str)),
          region: d('First-level administrative area', nullable(str)),
          countryCode: d('ISO 3166-1 alpha-2', nullable(str)),
        }),
      ),
    ),
    internationalPhone: d('The phone in E.164', nullable(str)),
    reviewCount: d('Google’s userRatingCount', nullable(int())),
    priceLevel: d(
      'Google’s price level',
      nullable({ type: 'string', enum: ['free', 'inexpensive', 'moderate', 'expensive', 'very_expensive'] }),
    ),
    businessStatus: d(
      'Google’s business status',
      nullable({ type: 'string', enum: ['OPERATIONAL', 'CLOSED_TEMPORARILY', 'CLOSED_PERMANENTLY'] }),
    ),
    openingHours: d(
      'Regular opening hours',
      nullable(
        object({
          weekdayDescriptions: d('One line per weekday, Monday first', strings),
          periods: d('Opening periods; `close` null: open around the clock', {
            type: 'array',
            items: object({ open: d('When it opens', point), close: d('When it closes', nullable(point)) }),
          }),
        }),
      ),
    ),
    googleMapsUri: d('The place on Google Maps', nullable(str)),
    primaryType: d('Google’s primary type ("dental_clinic")', nullable(str)),
    types: d('Google’s types', strings),
    utcOffsetMinutes: d('The place’s current offset from UTC', nullable({ type: 'integer' })),
  },
  undefined,
  {
    description:
      'google_maps only (decision 038): Google’s own fields; the Enterprise-tier ones are null under GOOGLE_PLACES_FIELDS=pro. Absent on leads delivered before it',
  },
);

export const leadSchema = object(
  {
    source: d('The source that found the lead', sources),
    businessName: d("The business (or for linkedin the person's company) name", str),
    email: d(
      'A contact email address, when one was found: never an address whose domain takes no mail, nor a disposable one (the next-best address the lead carries, or null)',
      nullable(str),
    ),
    emailVerification: {
      anyOf: [{ $ref: '#/components/schemas/EmailVerification' }, { type: 'null' }],
      description: 'The verdict on `email` (domain-level, from DNS); null when `email` is null',
    },
    phone: d('A phone number in international form, when known', nullable(str)),
    address: d(
      'The postal address; null for a google_maps service-area business (no storefront), which has `serviceArea` instead',
      nullable(str),
    ),
    serviceArea: d('google_maps service-area businesses only: the locality they serve, null when Google names none', nullable(str)),
    website: d("The business's website URL, when known", nullable(str)),
    reviewScore: d('The average review score (google_maps), when known', nullable({ type: 'number' })),
    categories: d("The source's categories for the business", { type: 'array', items: str }),
    socialProfiles: d('Profile URLs found for the business', profiles('page URL')),
    retrievedAt: d('When the upstream answered with this record (decision 038); absent on leads delivered before it', time),
    provenance: provenanceSchema,
    notice: d(
      'What the person must be told at your first contact at the latest (GDPR art. 14: where the data came from; art. 21(4): that they may object): the sources of the lead’s values, when they were read, and the objection URL. docs/data-protection.md gives a notice text built from it. Absent on leads delivered before it',
      object(
        {
          sources: d(
            'Where the lead’s values came from, each once: the upstream by name (“Google Places”), the page URL for a value read on the business’s website',
            {
              type: 'array',
              items: str,
            },
          ),
          retrievedAt: d('When the upstream answered (else the earliest retrieval of a value); null when unknown', nullable(time)),
          objectionUrl: d(
            'Where the person objects to direct marketing, for every buyer at once (POST, no key): PUBLIC_BASE_URL + /api/v1/privacy/objections; null when the service has no PUBLIC_BASE_URL',
            nullable(str),
          ),
        },
        ['sources', 'retrievedAt', 'objectionUrl'],
      ),
    ),
    place: placeSchema,
    person: d(
      'The person (linkedin only)',
      object(
        {
          fullName: d('Full name', str),
          title: d('Job title', nullable(str)),
          seniority: d('Seniority level', nullable(str)),
          linkedinUrl: d('LinkedIn profile URL', str),
          location: d('Location as the profile states it', nullable(str)),
          workEmail: d('PDL’s work email', nullable(str)),
          emailType: d('What kind of address `email` is', nullable({ type: 'string', enum: ['professional', 'personal'] })),
          phoneNumbers: d('Every phone number PDL returned', strings),
          locationParts: d(
            'The location split',
            object({
              locality: d('City', nullable(str)),
              region: d('Region or state', nullable(str)),
              country: d('Country', nullable(str)),
              postalCode: d('Postal code', nullable(str)),
            }),
          ),
          jobStartDate: d('When the person started the job (YYYY-MM or YYYY-MM-DD)', nullable(str)),
          seniorityLevels: d('Every level PDL gives the job title', strings),
          company: d(
            'The person’s company',
            nullable(
              object({
                name: d('Company name', nullable(str)),
                website: d('Company website', nullable(str)),
                size: d('Headcount band', nullable(str)),
                industry: d('Industry', nullable(str)),
                linkedinUrl: d('Company LinkedIn page', nullable(str)),
                location: d('Company location', nullable(str)),
              }),
            ),
          ),
          skills: d('Skills, where PDL returns them', strings),
        },
        ['fullName', 'title', 'seniority', 'linkedinUrl', 'location'],
      ),
    ),
    store: d(
      'The store (shopify only)',
      object(
        {
          domain: d("The store's domain", str),
          country: d('ISO 3166-1 alpha-2 country of the store, when known', nullable(str)),
          platform: d('The e-commerce platform', str),
          categoryPath: d("The store's category path, when known", nullable(str)),
          merchantName: d("The merchant's name", nullable(str)),
          plan: d('The platform plan', nullable(str)),
          city: d('City', nullable(str)),
          region: d('Region or state', nullable(str)),
          categoryPaths: d('Every category path Store Leads lists', strings),
          estimatedMonthlySales: d('Estimated monthly sales, US cents', nullable(num)),
          employeeCount: d('Employees', nullable(num)),
          productCount: d('Products listed', nullable(num)),
          rank: d('1 is the largest store', nullable(num)),
          technologies: d('Technologies detected', strings),
          apps: d('Apps installed', strings),
          createdAt: d('When the store was created', nullable(str)),
        },
        ['domain', 'country', 'platform'],
      ),
    ),
    enrichment: object(
      {
        emailSource: d('Where the email was found (a page URL or the source)', nullable(str)),
        emailBasis: d('How the email was chosen', nullable(str)),
        profileSources: d('Where each social profile was found', profiles('source page')),
        pagesVisited: d('Website pages read while enriching', int()),
        websiteStatus: d(
          'ok; parked: a registrar parking or expired-domain page, nothing taken from it; unreachable: no page could be read (decision 040)',
          { type: 'string', enum: ['ok', 'parked', 'unreachable'] },
        ),
        sources: d(
          "Per value the website filled: the page it was read on and why it is the business's (decision 040)",
          object(
            Object.fromEntries(
              ['email', 'facebook', 'instagram', 'linkedin'].map((value) => [
                value,
                {
                  description: `Where the ${value === 'email' ? 'email' : `${value} profile`} the website filled was read; null when the website filled none`,
                  anyOf: [
                    object({
                      sourceUrl: d('The page the value was read on', str),
                      basis: d('The evidence it is the business\'s ("site domain", "contact block", "Page Plugin", ...)', str),
                    }),
                    { type: 'null' },
                  ],
                },
              ]),
            ),
          ),
        ),
      },
      // websiteStatus and sources are absent on leads enriched before decision 040
      ['emailSource', 'emailBasis', 'profileSources', 'pagesVisited'],
      { description: "where an enriched lead's email and profiles were found (decision 015)" },
    ),
    contacts: d('Contacts at the store (shopify only)', {
      type: 'array',
      items: object(
        {
          name: d('Full name', nullable(str)),
          title: d('Role', nullable(str)),
          email: d('Email address', nullable(str)),
          emailVerification: {
            anyOf: [{ $ref: '#/components/schemas/EmailVerification' }, { type: 'null' }],
            description: "The verdict on the contact's `email`; null when it has none",
          },
          phone: d('Phone number', nullable(str)),
          linkedinUrl: d('LinkedIn profile URL', nullable(str)),
          provenance: d(
            'Where each of the contact’s values came from (decision 038)',
            object({
              email: d('Where the email came from', valueSource),
              phone: d('Where the phone came from', valueSource),
              linkedinUrl: d('Where the profile came from', valueSource),
            }),
          ),
        },
        ['name', 'title', 'email', 'phone', 'linkedinUrl'],
      ),
    }),
  },
  ['source', 'businessName', 'email', 'phone', 'address', 'website', 'reviewScore', 'categories', 'socialProfiles'],
  { description: 'The common record for every source; `person` for linkedin, `store` and `contacts` for shopify.' },
);

export const progress = object({
  requestedCount: d('maxResults of the request', int(1)),
  deliveredCount: d('Leads delivered so far', int()),
});
export const jobCommon = {
  jobId: d('The job id (`job_…`)', str),
  resultSetId: d("The id of the job's result set (`rs_…`)", str),
  pollUrl: d('Where to poll the job', str),
  source: d("The request's source", sources),
  provider: d('The provider that ran the job, once one has', nullable(str)),
  request: { ...ref('GenerationRequest'), description: 'the normalised generation request (defaults filled in)' },
  progress: d('How far along the job is', progress),
  createdAt: d('When the job was created', time),
  startedAt: d('When a worker started it', nullable(time)),
  finishedAt: d('When it reached its terminal status', nullable(time)),
  batchId: d('The batch this job is a child of (`bat_…`), or null', nullable(str)),
  creditsReserved: { ...int(), description: 'held until the job settles; 0 once terminal' },
  creditsCharged: d('Credits charged, once terminal', nullable(int())),
  skipped: {
    ...object({
      alreadyDelivered: d('Leads the account already had (excludeDelivered)', int()),
      suppressed: d("Leads on the account's suppression list", int()),
      filtered: d("Leads the request's `filters` left out (decision 038)", int()),
    }),
    description:
      "leads passed over and not billed: ones the account already had (with excludeDelivered), ones on its suppression list (decision 014), and ones the request's filters left out (decision 038)",
  },
  upstreamCalls: {
    type: 'object',
    additionalProperties: int(),
    description:
      'The paid calls the job made upstream, by upstream (`google_places`, `people_data_labs`, `storeleads`, `reacher`, `zerobounce`), retries included: what a filter cost (decision 038). Pages of the sandbox count as `sandbox`',
  },
  monitorId: d('The monitor whose run this job is (`mon_…`, decision 022); absent for a job you asked for directly', str),
};
/** Every field of a job body is always there, but monitorId (only a monitor's run has it). */
export const jobRequired = (properties: Record<string, unknown>) => Object.keys(properties).filter((name) => name !== 'monitorId');
export const terminalObject = d(
  'The outcome; present exactly when the status is terminal, and then it never changes',
  object({
    status: d('The terminal status', { type: 'string', enum: [...TERMINAL_STATUSES] }),
    requestedCount: d('maxResults of the request', int(1)),
    deliveredCount: d('Leads delivered', int()),
    resultSetId: d('The result set holding the leads', str),
    stopReason: d(
      'Why the job stopped producing leads (null for a job that delivered everything asked for)',
      nullable({
        type: 'string',
        enum: [
          'source_exhausted',
          'no_results',
          'provider_error',
          'provider_unauthorized',
          'timeout',
          'internal_error',
          'cancelled_by_owner',
          'batch_budget_exhausted',
        ],
      }),
    ),
  }),
);
const nonTerminal = d('queued or running', { type: 'string', enum: [...NON_TERMINAL_STATUSES] });
const terminal = d('A terminal status: it never changes again', { type: 'string', enum: [...TERMINAL_STATUSES] });
export const openJob = object({ ...jobCommon, status: nonTerminal }, jobRequired({ ...jobCommon, status: nonTerminal }), {
  title: 'JobOpen',
  description: 'A job still queued or running: no `terminal`, no `leads`',
});
export const finishedJob = (withLeads: boolean) => {
  const properties = {
    ...jobCommon,
    status: terminal,
    terminal: terminalObject,
    ...(withLeads
      ? {
          leadsExpiredAt: d(
            "Present once the lead retention policy deleted the job's leads (`leads` is then empty; the counts and the charge stay)",
            time,
          ),
          leads: d('The delivered leads in delivery order', { type: 'array', items: ref('Lead') }),
        }
      : {}),
  };
  return object(
    properties,
    jobRequired(properties).filter((name) => name !== 'leadsExpiredAt'),
    { description: withLeads ? 'A terminal job with its leads' : 'A terminal job, without `leads` (listings, webhook events)' },
  );
};

const statusName = (status: string) => status.charAt(0).toUpperCase() + status.slice(1).toLowerCase();

/**
 * One variant per status (`JobQueued`, `JobComplete`, …): the open or finished body with `status` fixed
 * to one value. With a variant per status a generator's union narrows however a consumer checks the
 * status (`job.status !== 'queued' && job.status !== 'running'` leaves only the terminal variants), which
 * two variants of several statuses each cannot.
 */
export const jobVariants = (prefix: string, open: string, finished: string): Record<string, Schema> =>
  Object.fromEntries(
    [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES].map((status) => [
      `${prefix}${statusName(status)}`,
      {
        description: `A job body whose status is ${status}`,
        allOf: [
          ref((NON_TERMINAL_STATUSES as readonly string[]).includes(status) ? open : finished),
          { type: 'object', properties: { status: { const: status, description: `${status} in this variant` } }, required: ['status'] },
        ],
      },
    ]),
  );

/**
 * A union on `status`, one variant per status (jobVariants), with a discriminator mapping each status to
 * its variant, so generators type it as a discriminated union (`job.status === 'COMPLETE'` narrows).
 */
export const jobUnion = (prefix: string, description: string) => {
  const statuses = [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES];
  return {
    description,
    oneOf: statuses.map((status) => ref(`${prefix}${statusName(status)}`)),
    discriminator: {
      propertyName: 'status',
      mapping: Object.fromEntries(statuses.map((status) => [status, `#/components/schemas/${prefix}${statusName(status)}`])),
    },
  };
};

export const leadItem = object(
  {
    jobId: d('The job that delivered the lead', str),
    resultSetId: d("That job's result set", str),
    position: d("The lead's position in the result set (0-based, delivery order)", int()),
    deliveredAt: d('When it was delivered', time),
    lead: ref('Lead'),
  },
  undefined,
  { description: 'A delivered lead and where it belongs; `lead` is the record of the job body.' },
);

// Builders for the blocks endpoint entries repeat (routes/**/*-endpoints.ts).

/** A JSON answer: the rate-limit headers and any others given, the body's schema. */
export const jsonAnswer = (description: string, schema: Schema, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: { ...limited, ...extraHeaders },
  content: { 'application/json': { schema } },
});
/** A page of a listing, with `Link` to the next. */
export const pageAnswer = (description: string, schema: Schema) => jsonAnswer(description, schema, { Link: hdr('Link') });
/** 204 of a DELETE. */
export const deletedAnswer = { description: 'Deleted', headers: limited };
/** The Idempotency-Key header of a call that creates something. */
export const idempotencyKeyParam = (remembered = ' Remembered 24 h per account.') => ({
  name: 'Idempotency-Key',
  in: 'header',
  required: true,
  description: `1..255 printable ASCII characters; \`"abc"\` and \`abc\` are one key.${remembered}`,
  schema: { type: 'string', minLength: 1, maxLength: 257 },
});

import Joi from 'joi';
import {
  COMPANY_SIZES,
  CONTACT_CHANNELS,
  DEFAULT_SOURCE,
  LINKEDIN_COUNTRY_LIST_NAME,
  MAX_RESULTS_DEFAULT,
  MAX_RESULTS_LIMIT,
  PRICE_LEVELS,
  SENIORITIES,
  SOURCES,
  isIsoCountryCode,
  isSandboxKeyword,
  normalizeLinkedinCountry,
  parseSandboxDirectives,
  type FieldProblem,
  type GenerationRequest,
} from '@leadgen/domain';
import { jsonPointer, unsafeContentProblems } from '../../http/body-guard';
import { webhookUrl } from '../webhooks/webhooks-schema';

const isoCountry = Joi.string()
  .trim()
  .custom((value: string, helpers) => (isIsoCountryCode(value) && value.length === 2 ? value.toUpperCase() : helpers.error('country.iso')))
  .messages({ 'country.iso': '{{#label}} must be an ISO 3166-1 alpha-2 country code, such as US or de' });

const linkedinCountry = Joi.string()
  .trim()
  .custom((value: string, helpers) => normalizeLinkedinCountry(value) ?? helpers.error('country.linkedin'))
  .messages({
    'country.linkedin': `{{#label}} must be a country code or English name from the list "${LINKEDIN_COUNTRY_LIST_NAME}" (see GET /api/v1/meta/linkedin-countries)`,
  });

const text = (max: number) => Joi.string().trim().min(1).max(max);
const oneOrMany = (item: Joi.StringSchema) => Joi.alternatives().try(Joi.array().items(item).min(1).max(20), item);
const onlyFor = (source: string) => ({
  is: source,
  otherwise: Joi.forbidden().messages({ 'any.unknown': `{{#label}} is only accepted with source ${source}` }),
});

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const yes = () => Joi.valid(true).messages({ 'any.only': '{{#label}} takes only true (leave it out for no filter)' });
const count = () => Joi.number().strict().integer().min(0).max(1_000_000_000_000);
const filterMessages = (source: string, fields: string) => ({
  'object.base': '{{#label}} must be an object',
  'object.unknown': `{{#label}} is not a ${source} filter (${fields})`,
});

/** The request's `filters`, per source (decision 038): what is neither delivered nor billed. */
const filtersSchema = Joi.when('source', {
  switch: [
    {
      is: 'linkedin',
      then: Joi.object({
        /** only people with an email */
        requireEmail: yes(),
        /** only people with a phone */
        requirePhone: yes(),
      }).messages(filterMessages('linkedin', 'requireEmail, requirePhone')),
    },
    {
      is: 'shopify',
      then: Joi.object({
        /** Store Leads' estimated monthly sales, US cents, at least */
        minEstimatedSales: count(),
        /** at most */
        maxEstimatedSales: count(),
        /** any of these technologies */
        technologies: Joi.array().items(text(100)).min(1).max(20).unique(),
        /** any of these apps */
        apps: Joi.array().items(text(100)).min(1).max(20).unique(),
        /** created on or after this date (YYYY-MM-DD) */
        createdAfter: Joi.string()
          .pattern(DATE)
          // a day the calendar has (2021-02-29 is none); a value the pattern refused is reported once, by it
          .custom((value: string, helpers) => {
            if (!DATE.test(value)) return value;
            const date = new Date(`${value}T00:00:00Z`);
            return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? helpers.error('string.pattern.base') : value;
          })
          .messages({ 'string.pattern.base': '{{#label}} must be a date as YYYY-MM-DD' }),
        /** at least this many products */
        minProductCount: count(),
      })
        .custom((value: { minEstimatedSales?: number; maxEstimatedSales?: number }, helpers) =>
          value.minEstimatedSales !== undefined &&
          value.maxEstimatedSales !== undefined &&
          value.minEstimatedSales > value.maxEstimatedSales
            ? helpers.message({ custom: 'filters.minEstimatedSales must not be above filters.maxEstimatedSales' })
            : value,
        )
        .messages(filterMessages('shopify', 'minEstimatedSales, maxEstimatedSales, technologies, apps, createdAfter, minProductCount')),
    },
  ],
  otherwise: Joi.object({
    /** Google's average rating at least this (0..5) */
    minRating: Joi.number().strict().min(0).max(5),
    /** Google's review count at least this */
    minReviewCount: count(),
    /** Google's price level one of these */
    priceLevels: Joi.array()
      .items(Joi.string().valid(...PRICE_LEVELS))
      .min(1)
      .unique(),
    /** only places with a website */
    requireWebsite: yes(),
    /** only places with a phone */
    requirePhone: yes(),
    /** only places with an email (from Google or the website) */
    requireEmail: yes(),
    /** deliver temporarily closed places too (a permanently closed one never is) */
    includeClosed: yes(),
  }).messages(
    filterMessages('google_maps', 'minRating, minReviewCount, priceLevels, requireWebsite, requirePhone, requireEmail, includeClosed'),
  ),
});

/** POST /api/v1/leads/generate: the generation request, as docs/api.md ("The generation request") promises it. */
export const generateRequestSchema = Joi.object({
  /** which source to search: google_maps (default), linkedin or shopify */
  source: Joi.string()
    .valid(...SOURCES)
    .default(DEFAULT_SOURCE),
  /** the business type or professional category, e.g. "dentist" */
  category: text(200).required(),
  /** ISO 3166-1 alpha-2 country; for linkedin a code or English name from the governed list */
  state: Joi.when('source', { is: 'linkedin', then: linkedinCountry, otherwise: isoCountry }).required(),
  /** city name, narrows the search */
  city: text(200),
  /** additional keyword filter; `sandbox:...` steers a sandbox job */
  keyword: text(200).custom((value: string, helpers) => {
    if (!isSandboxKeyword(value)) return value;
    const parsed = parseSandboxDirectives(value);
    return parsed.ok ? value : helpers.message({ custom: `{{#label}}: ${parsed.problem}` });
  }),
  /** how many leads at most: an integer 1..100, never clamped */
  maxResults: Joi.number().strict().integer().min(1).max(MAX_RESULTS_LIMIT).default(MAX_RESULTS_DEFAULT),
  /** skip leads this account received in any earlier job (neither delivered nor billed); default false */
  excludeDelivered: Joi.boolean().strict(),
  /** where this job's terminal event is also POSTed, signed with the account's default webhook secret (decision 016) */
  webhookUrl: webhookUrl({ allowHttp: true }),
  /** what not to deliver (nor bill), per source: a lead that fails a filter is counted in skipped.filtered (decision 038) */
  filters: filtersSchema,
  /** structured LinkedIn filters (source linkedin only) */
  linkedinParams: Joi.when('source', {
    ...onlyFor('linkedin'),
    then: Joi.object({
      /** job title(s) */
      title: oneOrMany(text(200)),
      /** seniority levels */
      seniority: Joi.array()
        .items(Joi.string().valid(...SENIORITIES))
        .min(1)
        .unique(),
      /** industry or industries */
      industry: oneOrMany(text(200)),
      /** company headcount bands */
      companySize: Joi.array()
        .items(Joi.string().valid(...COMPANY_SIZES))
        .min(1)
        .unique(),
      /** country, as `state` */
      country: linkedinCountry,
    })
      // Own messages: the root's would otherwise reach in and call linkedinParams "the body".
      .messages({
        'object.base': '{{#label}} must be an object',
        'object.unknown': '{{#label}} is not a linkedinParams filter (title, seniority, industry, companySize, country)',
      }),
  }),
  /** Shopify contact roles to keep (source shopify only) */
  decisionMakerTitles: Joi.when('source', { ...onlyFor('shopify'), then: Joi.array().items(text(200)).min(1).max(20) }),
  /** Shopify stores must have each of these channels (source shopify only) */
  requiredChannels: Joi.when('source', {
    ...onlyFor('shopify'),
    then: Joi.array()
      .items(Joi.string().valid(...CONTACT_CHANNELS))
      .min(1)
      .unique(),
  }),
})
  .required()
  .messages({ 'object.unknown': '{{#label}} is not a field of the generation request', 'object.base': 'the body must be a JSON object' })
  .custom((value: unknown) => normalizeGenerationRequest(value))
  .meta({ 'x-component': 'GenerationRequestInput' });

const arrayOf = (value: string | string[] | undefined) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

/**
 * A generation request checked as POST /leads/generate checks it: the normalised request, or every problem
 * (pointers from the request's root). A batch checks each of its requests through this.
 */
export function checkGenerationRequest(
  body: unknown,
): { request: GenerationRequest; problems: [] } | { request: null; problems: FieldProblem[] } {
  const unsafe = unsafeContentProblems(body);
  const { value, error } = generateRequestSchema.validate(body, { abortEarly: false, errors: { wrap: { label: false } } });
  if (error || unsafe.length > 0) {
    const problems: FieldProblem[] = (error?.details ?? []).map((d) => ({ pointer: jsonPointer(d.path), detail: d.message }));
    // A field both reports would say the same thing twice; the content problem is the precise one.
    const flagged = new Set(unsafe.map((p) => p.pointer));
    return { request: null, problems: [...unsafe, ...problems.filter((p) => !flagged.has(p.pointer))] };
  }
  return { request: value as GenerationRequest, problems: [] };
}

/** Its place in a body, as Joi labels it: `requests[17]`, `batch.requests[3]`. */
const labelOf = (path: ReadonlyArray<string | number>) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${p}`)).join('');

/**
 * An item of an array of generation requests (a batch's, a batch monitor's), checked exactly as POST
 * /leads/generate checks one, with `rules` on top: its problems keep pointers from the request
 * (the route table moves them under the item: `#/requests/17/state`) and say which item
 * (`requests[17]: …`). The value is the normalised request. Items of an array longer than `max` are
 * not checked (the array's own problem says it). Documented as a GenerationRequestInput.
 */
export const generationRequestItem = (max: number, rules?: (raw: Record<string, unknown>, request: GenerationRequest) => FieldProblem[]) =>
  Joi.any()
    .custom((value: unknown, helpers) => {
      const array = helpers.state.ancestors[0] as unknown[];
      if (array.length > max) return value;
      const checked = checkGenerationRequest(value);
      const problems = checked.request ? (rules?.(value as Record<string, unknown>, checked.request) ?? []) : checked.problems;
      if (problems.length === 0) return checked.request;
      const label = labelOf(helpers.state.path ?? []);
      return helpers.error('request.invalid', { problems: problems.map((p) => ({ pointer: p.pointer, detail: `${label}: ${p.detail}` })) });
    })
    .messages({ 'request.invalid': '{{#label}} is not a generation request' })
    .meta({ 'x-component': 'GenerationRequestInput' });

/** A request the schema accepted, in its one normal form (a monitor's request is stored in it too). */
function normalizeGenerationRequest(value: unknown): GenerationRequest {
  const request = value as Omit<GenerationRequest, 'excludeDelivered'> & {
    excludeDelivered?: boolean;
    linkedinParams?: { title?: string | string[]; industry?: string | string[] };
  };
  // false is the default: left out, so `false` and no field are one request (one idempotency fingerprint).
  if (request.excludeDelivered === false) delete request.excludeDelivered;
  // An empty `filters` is no filter: one request with or without it.
  if (request.filters && Object.keys(request.filters).length === 0) delete request.filters;
  if (request.linkedinParams) {
    request.linkedinParams = {
      ...request.linkedinParams,
      title: arrayOf(request.linkedinParams.title),
      industry: arrayOf(request.linkedinParams.industry),
    };
    for (const key of ['title', 'industry'] as const) if (request.linkedinParams[key] === undefined) delete request.linkedinParams[key];
  }
  return request as GenerationRequest;
}

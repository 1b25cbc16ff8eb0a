import Joi from 'joi';
import {
  COMPANY_SIZES,
  CONTACT_CHANNELS,
  DEFAULT_SOURCE,
  LINKEDIN_COUNTRY_LIST_NAME,
  MAX_RESULTS_DEFAULT,
  MAX_RESULTS_LIMIT,
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
function checkGenerationRequest(body: unknown): { request: GenerationRequest; problems: [] } | { request: null; problems: FieldProblem[] } {
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

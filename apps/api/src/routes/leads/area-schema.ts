import Joi from 'joi';
import { checkArea, ID_PATTERNS, type FieldProblem, type GenerationRequest, type ResolvedArea } from '@leadgen/domain';
import { webhookUrl } from '../webhooks/webhooks-schema';
import { checkGenerationRequest } from './generate-schema';

/** Google lists at most this many places for one query: an area search's tile asks for all of them. */
export const TILE_MAX_RESULTS = 60;
/** an area search's batch-wide maxResults at most: more than any area within AREA_LIMITS holds in practice */
export const AREA_MAX_RESULTS = 100_000;

/**
 * An area and its request checked, every problem at once (pointers #/area/…, #/request/…), as a Joi rule of
 * the route table (decision 029): the value becomes the AreaSearch. Left to the object's own problems when
 * area or request is missing.
 */
const areaSearchRule = (value: Record<string, unknown>, helpers: Joi.CustomHelpers) => {
  if (value.area === undefined || value.request === undefined) return value;
  const problems: FieldProblem[] = [];
  const search = checkAreaSearch(value, problems);
  return search ? search : helpers.error('area.invalid', { problems });
};

/** The area of an area search, checked by checkArea; documented by the hand-written Area component. */
const area = () => Joi.any().meta({ 'x-component': 'Area' });
/** The request run over the area, checked by checkGenerationRequest (its problems at #/request/…). */
const areaRequest = () =>
  Joi.any()
    .description(
      'A google_maps generation request, without city (the area says where) or maxResults (each tile lists all it can, up to 60)',
    )
    .meta({ 'x-schema': { type: 'object', additionalProperties: true } });

/** POST /api/v1/leads/quotes: an area and the request to run over it (docs/api.md#area-searches); the value is the AreaSearch. */
export const quoteRequestSchema = Joi.object({
  area: area().required(),
  request: areaRequest().required(),
})
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a field of the quote request',
    'object.base': 'the body must be a JSON object',
    'area.invalid': 'the area search is not valid',
  })
  .custom(areaSearchRule)
  .description('What to quote: an area and the request to run over it')
  .example({ area: { bbox: { south: 41.85, west: -87.7, north: 41.9, east: -87.6 } }, request: { category: 'dentist', state: 'US' } })
  .meta({ 'x-component': 'QuoteRequest' });

/** POST /api/v1/leads/batches with an area: the area and its request, or a quote's id, and the batch's own fields. */
export const areaBatchSchema = Joi.object({
  area: area().description('The area to search; with request, instead of quoteId'),
  request: areaRequest(),
  quoteId: Joi.string()
    .pattern(ID_PATTERNS.quote)
    .messages({ 'string.pattern.base': '{{#label}} is not a quote id (quo_…)' })
    .description('A quote (`quo_…`, POST /leads/quotes) whose area, request and tiles the batch runs; instead of area and request'),
  maxCredits: Joi.number().strict().integer().min(1).max(2_147_483_647).description('The most the batch may charge, in credits'),
  maxResults: Joi.number()
    .strict()
    .integer()
    .min(1)
    .max(AREA_MAX_RESULTS)
    .description('The most leads the whole area search delivers (and charges for), across its tiles'),
  excludeDelivered: Joi.boolean().strict().description('Skip leads the account received in any earlier job'),
  webhookUrl: webhookUrl({ allowHttp: true }).description("Where the batch's terminal event is POSTed"),
  name: Joi.string().trim().min(1).max(200).description('A label for the batch, at most 200 characters'),
})
  .xor('area', 'quoteId')
  .with('area', 'request')
  .without('quoteId', ['area', 'request'])
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a field of an area batch',
    'object.xor': 'an area batch takes area (with request) or quoteId, not both',
    'object.missing': 'an area batch takes area (with request) or quoteId',
    'object.with': 'area needs request: the generation request to run over it',
    'object.without': 'quoteId brings its own area and request',
    'area.invalid': 'the area search is not valid',
  })
  .custom(
    (
      fields: {
        quoteId?: string;
        area?: unknown;
        request?: unknown;
        excludeDelivered?: boolean;
        maxCredits?: number;
        maxResults?: number;
        webhookUrl?: string;
        name?: string;
      },
      helpers,
    ) => {
      let search: AreaSearch | null = null;
      if (fields.quoteId === undefined) {
        if (fields.area === undefined || fields.request === undefined) return fields;
        const problems: FieldProblem[] = [];
        search = checkAreaSearch(fields as Record<string, unknown>, problems);
        if (!search) return helpers.error('area.invalid', { problems });
      }
      const excludeDelivered = fields.excludeDelivered === true;
      return {
        search: search && excludeDelivered ? { ...search, request: { ...search.request, excludeDelivered: true } } : search,
        quoteId: fields.quoteId ?? null,
        excludeDelivered,
        maxCredits: fields.maxCredits ?? null,
        maxResults: fields.maxResults ?? null,
        webhookUrl: fields.webhookUrl ?? null,
        name: fields.name ?? null,
      } satisfies AreaBatchRequest;
    },
  )
  .description('An area search: area and request, or quoteId; its children are the area’s tiles')
  .example({ quoteId: 'quo_0123456789abcdefghijklmn', maxCredits: 2000 })
  .meta({ 'x-component': 'AreaBatchRequest' });

/** An area and its request as checked: the area resolved unless it is a place name, which the source resolves. */
export interface AreaSearch {
  area: ResolvedArea | null;
  place: string | null;
  /** the request each tile runs, with maxResults 60 */
  request: GenerationRequest;
}

/** Checks an area and its request, adding every problem to `problems` (pointers #/area/…, #/request/…). */
export function checkAreaSearch(body: Record<string, unknown>, problems: FieldProblem[]): AreaSearch | null {
  const area = checkArea(body.area);
  problems.push(...area.problems);
  const raw = body.request;
  const checked = checkGenerationRequest(raw);
  for (const problem of checked.problems) problems.push({ pointer: `#/request${problem.pointer.slice(1)}`, detail: problem.detail });
  const given = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  if (checked.request && checked.request.source !== 'google_maps')
    problems.push({ pointer: '#/request/source', detail: 'an area search runs on google_maps' });
  if ('city' in given) problems.push({ pointer: '#/request/city', detail: 'the area says where to search: leave city out' });
  if ('maxResults' in given)
    problems.push({
      pointer: '#/request/maxResults',
      detail: "each tile lists all it can (up to 60): bound the area search with the batch's own maxResults or maxCredits",
    });
  if (problems.length > 0 || !checked.request) return null;
  return { area: area.area, place: area.place, request: { ...checked.request, maxResults: TILE_MAX_RESULTS } };
}

export interface AreaBatchRequest {
  /** the area and request given, or null when the batch comes from a quote */
  search: AreaSearch | null;
  quoteId: string | null;
  excludeDelivered: boolean;
  maxCredits: number | null;
  /** the batch-wide maxResults: the most leads delivered and charged across the tiles (decision 039) */
  maxResults: number | null;
  webhookUrl: string | null;
  name: string | null;
}

import Joi from 'joi';
import { checkArea, errors, ID_PATTERNS, type FieldProblem, type GenerationRequest, type ResolvedArea } from '@leadgen/domain';
import { jsonPointer, unsafeContentProblems } from '../../http/body-guard';
import { webhookUrl } from '../webhooks/webhooks-schema';
import { checkGenerationRequest } from './generate-schema';

/** Google lists at most this many places for one query: an area search's tile asks for all of them. */
export const TILE_MAX_RESULTS = 60;

/** POST /api/v1/leads/quotes: an area and the request to run over it (docs/api.md#area-searches). */
export const quoteRequestSchema = Joi.object({
  /** { place }, { bbox }, { circle } or a GeoJSON Polygon or MultiPolygon; checked by checkArea */
  area: Joi.any().required(),
  /** a google_maps generation request without city or maxResults (the area says where; each tile lists up to 60) */
  request: Joi.any().required(),
})
  .required()
  .messages({ 'object.unknown': '{{#label}} is not a field of the quote request', 'object.base': 'the body must be a JSON object' });

/** POST /api/v1/leads/batches with an area: the area and its request, or a quote's id, and the batch's own fields. */
export const areaBatchSchema = Joi.object({
  /** the area to search (see quoteRequestSchema); not with quoteId */
  area: Joi.any(),
  /** the request run over the area; with area */
  request: Joi.any(),
  /** a stored quote (POST /leads/quotes) whose area, request and tiles the batch runs; instead of area and request */
  quoteId: Joi.string().pattern(ID_PATTERNS.quote).messages({ 'string.pattern.base': '{{#label}} is not a quote id (quo_…)' }),
  /** the most the batch may charge, in credits */
  maxCredits: Joi.number().strict().integer().min(1).max(2_147_483_647),
  /** skip leads this account received in any earlier job */
  excludeDelivered: Joi.boolean().strict(),
  /** where the batch's terminal event is POSTed */
  webhookUrl: webhookUrl(true),
  /** a label for the batch, at most 200 characters */
  name: Joi.string().trim().min(1).max(200),
})
  .xor('area', 'quoteId')
  .with('area', 'request')
  .without('quoteId', ['area', 'request'])
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a field of an area batch (maxResults: bound an area search with maxCredits)',
    'object.xor': 'an area batch takes area (with request) or quoteId, not both',
    'object.missing': 'an area batch takes area (with request) or quoteId',
    'object.with': 'area needs request: the generation request to run over it',
    'object.without': 'quoteId brings its own area and request',
  });

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
      detail: 'each tile lists all it can (up to 60): bound an area search with maxCredits',
    });
  if (problems.length > 0 || !checked.request) return null;
  return { area: area.area, place: area.place, request: { ...checked.request, maxResults: TILE_MAX_RESULTS } };
}

/** POST /api/v1/leads/quotes: the body checked, every problem at once (400 validation_failed). */
export function parseQuoteRequest(body: unknown): AreaSearch {
  const unsafe = unsafeContentProblems(body);
  const { error } = quoteRequestSchema.validate(body, { abortEarly: false, errors: { wrap: { label: false } } });
  const problems: FieldProblem[] = [...unsafe, ...(error?.details ?? []).map((d) => ({ pointer: jsonPointer(d.path), detail: d.message }))];
  if (problems.length > 0) throw errors.validation(problems);
  const search = checkAreaSearch(body as Record<string, unknown>, problems);
  if (!search) throw errors.validation(problems);
  return search;
}

export interface AreaBatchRequest {
  /** the area and request given, or null when the batch comes from a quote */
  search: AreaSearch | null;
  quoteId: string | null;
  excludeDelivered: boolean;
  maxCredits: number | null;
  webhookUrl: string | null;
  name: string | null;
}

/** POST /api/v1/leads/batches with `area` or `quoteId`: every problem at once. */
export function parseAreaBatchRequest(body: Record<string, unknown>): AreaBatchRequest {
  const unsafe = unsafeContentProblems(body);
  const { value, error } = areaBatchSchema.validate(body, { abortEarly: false, errors: { wrap: { label: false } } });
  const problems: FieldProblem[] = [...unsafe, ...(error?.details ?? []).map((d) => ({ pointer: jsonPointer(d.path), detail: d.message }))];
  if (problems.length > 0) throw errors.validation(problems);
  const fields = value as { quoteId?: string; excludeDelivered?: boolean; maxCredits?: number; webhookUrl?: string; name?: string };
  const search = fields.quoteId === undefined ? checkAreaSearch(body, problems) : null;
  if (problems.length > 0) throw errors.validation(problems);
  const excludeDelivered = fields.excludeDelivered === true;
  return {
    search: search && excludeDelivered ? { ...search, request: { ...search.request, excludeDelivered: true } } : search,
    quoteId: fields.quoteId ?? null,
    excludeDelivered,
    maxCredits: fields.maxCredits ?? null,
    webhookUrl: fields.webhookUrl ?? null,
    name: fields.name ?? null,
  };
}

import { countryName, type GenerationRequest } from '@leadgen/domain';
import type { LatLng, Rect } from '@leadgen/domain';
import type { TextSearchBody } from './places-api';

/**
 * Google lists at most 60 places for one Text Search query. To deliver more, the adapter asks
 * again over smaller areas, with the only tool Google documents as narrowing an answer: a
 * `locationRestriction` rectangle, with a text query that names no place (a place named in the
 * text is where Google searches; a `locationBias` beside it is ignored, so the old "same query,
 * biased to each quadrant" variants returned the same 60 again). See UPSTREAM.md.
 *
 * 1. The city query: "<category> [keyword] in <city, country>", as a person would type it. If it
 *    lists fewer than 60, that was every match: nothing else is asked.
 * 2. Otherwise the rectangle around its results (their locations, a margin added) is split in four,
 *    and each quarter is asked "<category> [keyword]" restricted to it.
 * 3. A quarter that lists 60 again is split again, unless it brought nothing new (then its
 *    quarters would only repeat it); one that listed fewer has given every match inside it.
 *
 * So every call after the first asks an area that can hold places not seen yet, and the search
 * stops at MAX_AREA_QUERIES rectangles, or when areas get smaller than MIN_SPAN_DEGREES.
 */
export const MAX_AREA_QUERIES = 16;
/** about 500 m of latitude: below this a rectangle is one street, not worth a call */
export const MIN_SPAN_DEGREES = 0.005;
/** a quarter of the span around the first results: their spread understates the city's */
const MARGIN = 0.25;

function place(request: GenerationRequest): string {
  return [request.city?.trim(), countryName(request.state)].filter((s): s is string => Boolean(s)).join(', ');
}

function terms(request: GenerationRequest): string {
  return [request.category.trim(), request.keyword?.trim()].filter((s): s is string => Boolean(s)).join(' ');
}

/**
 * The first page's body of a query: the city query when `area` is null, else the location-free
 * query restricted to `area`. The keyword stays in both: dropping it would deliver places the
 * client did not ask for.
 */
export function queryBody(request: GenerationRequest, area: Rect | null, pageSize: number): TextSearchBody {
  const common = { pageSize, regionCode: request.state, includePureServiceAreaBusinesses: true };
  if (area === null) return { textQuery: `${terms(request)} in ${place(request)}`, ...common };
  return { textQuery: terms(request), ...common, locationRestriction: { rectangle: area } };
}

/** `bounds` grown to take `point` in (null: nothing yet). */
export function extend(bounds: Rect | null, point: LatLng): Rect {
  if (bounds === null) return { low: { ...point }, high: { ...point } };
  return {
    low: { latitude: Math.min(bounds.low.latitude, point.latitude), longitude: Math.min(bounds.low.longitude, point.longitude) },
    high: { latitude: Math.max(bounds.high.latitude, point.latitude), longitude: Math.max(bounds.high.longitude, point.longitude) },
  };
}

/** The rectangle to split after the city query: its results' bounds with a margin, at least MIN_SPAN wide. */
export function searchArea(bounds: Rect): Rect {
  const pad = (span: number) => Math.max(span * MARGIN, MIN_SPAN_DEGREES);
  const dLat = pad(bounds.high.latitude - bounds.low.latitude);
  const dLng = pad(bounds.high.longitude - bounds.low.longitude);
  return {
    low: { latitude: Math.max(-90, bounds.low.latitude - dLat), longitude: Math.max(-180, bounds.low.longitude - dLng) },
    high: { latitude: Math.min(90, bounds.high.latitude + dLat), longitude: Math.min(180, bounds.high.longitude + dLng) },
  };
}

/** The four quarters of `area` (north-west, north-east, south-west, south-east), or none when it is too small to split. */
export function quarters(area: Rect): Rect[] {
  const midLat = (area.low.latitude + area.high.latitude) / 2;
  const midLng = (area.low.longitude + area.high.longitude) / 2;
  if (area.high.latitude - area.low.latitude < 2 * MIN_SPAN_DEGREES && area.high.longitude - area.low.longitude < 2 * MIN_SPAN_DEGREES)
    return [];
  return [
    { low: { latitude: midLat, longitude: area.low.longitude }, high: { latitude: area.high.latitude, longitude: midLng } },
    { low: { latitude: midLat, longitude: midLng }, high: { ...area.high } },
    { low: { ...area.low }, high: { latitude: midLat, longitude: midLng } },
    { low: { latitude: area.low.latitude, longitude: midLng }, high: { latitude: midLat, longitude: area.high.longitude } },
  ];
}

export function isLatLng(value: unknown): value is LatLng {
  if (value === null || typeof value !== 'object') return false;
  const { latitude, longitude } = value as Record<string, unknown>;
  return typeof latitude === 'number' && typeof longitude === 'number' && Number.isFinite(latitude) && Number.isFinite(longitude);
}

export function isRect(value: unknown): value is Rect {
  if (value === null || typeof value !== 'object') return false;
  const { low, high } = value as Record<string, unknown>;
  return isLatLng(low) && isLatLng(high) && low.latitude <= high.latitude && low.longitude <= high.longitude;
}

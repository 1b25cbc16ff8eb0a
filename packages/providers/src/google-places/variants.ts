import { countryName, type GenerationRequest } from '@leadgen/domain';
import type { LatLng, Place, TextSearchBody } from './places-api';

/**
 * One Text Search answers at most 60 places (3 pages of 20), but a request may ask for 100. We
 * split the search into variants and let the adapter deduplicate by place id:
 *
 *  0. "<category> [keyword] in <city, country>": the request as a person would type it;
 *  1. "<category> [keyword] near <city, country>": Google ranks this one differently enough to
 *     surface places the first missed;
 *  2-5. variant 0 again, biased (locationBias circle) towards each quadrant of the area that
 *     variant 0's first page covered. Districts are unknown to us, but the first results tell us
 *     where the matches are and how far they spread; biasing to each quarter of that spread
 *     re-ranks the matches so each query's 60 reach further out from a different side.
 *
 * The keyword stays in every variant: dropping it would deliver places the client did not ask for.
 * Variants end the search when they run out; a variant 0 that ran out before the 60 cap already
 * listed every match, so the others are not even tried (each call is billed).
 */
export interface Area {
  center: LatLng;
  /** metres from the centre to the farthest result of the first page, within sane bounds */
  radius: number;
}

export const VARIANT_COUNT = 6;

const MIN_RADIUS = 1_000;
const MAX_RADIUS = 50_000; // the API's own maximum for a circle
const METRES_PER_DEGREE = 111_320;

function place(request: GenerationRequest): string {
  return [request.city?.trim(), countryName(request.state)].filter((s): s is string => Boolean(s)).join(', ');
}

function terms(request: GenerationRequest): string {
  return [request.category.trim(), request.keyword?.trim()].filter((s): s is string => Boolean(s)).join(' ');
}

/** The body of variant `index`'s first page, or null when it cannot be built (no area known yet). */
export function variantBody(request: GenerationRequest, index: number, area: Area | null, pageSize: number): TextSearchBody | null {
  const base = { pageSize, regionCode: request.state };
  if (index === 0) return { textQuery: `${terms(request)} in ${place(request)}`, ...base };
  if (index === 1) return { textQuery: `${terms(request)} near ${place(request)}`, ...base };
  if (index < VARIANT_COUNT && area !== null) {
    const quadrant = index - 2;
    const north = quadrant < 2 ? 1 : -1;
    const east = quadrant % 2 === 0 ? 1 : -1;
    const offset = area.radius / 2;
    const center = {
      latitude: clamp(area.center.latitude + (north * offset) / METRES_PER_DEGREE, -90, 90),
      longitude: wrap(area.center.longitude + (east * offset) / (METRES_PER_DEGREE * Math.max(0.01, Math.cos(toRad(area.center.latitude))))),
    };
    const radius = Math.min(MAX_RADIUS, Math.round(area.radius * 0.75));
    return { textQuery: `${terms(request)} in ${place(request)}`, ...base, locationBias: { circle: { center, radius } } };
  }
  return null;
}

/** The centroid of the places that have a location, and their spread; null when none has one. */
export function areaOf(places: readonly Place[]): Area | null {
  const points = places.map((p) => p.location).filter((l): l is LatLng => isLatLng(l));
  if (points.length === 0) return null;
  const center = {
    latitude: points.reduce((s, p) => s + p.latitude, 0) / points.length,
    longitude: points.reduce((s, p) => s + p.longitude, 0) / points.length,
  };
  const farthest = Math.max(...points.map((p) => distance(center, p)));
  return { center, radius: Math.round(clamp(farthest, MIN_RADIUS, MAX_RADIUS)) };
}

export function isLatLng(value: unknown): value is LatLng {
  if (value === null || typeof value !== 'object') return false;
  const { latitude, longitude } = value as Record<string, unknown>;
  return typeof latitude === 'number' && typeof longitude === 'number' && Number.isFinite(latitude) && Number.isFinite(longitude);
}

function distance(a: LatLng, b: LatLng): number {
  const dLat = toRad(b.latitude - a.latitude);
  const dLng = toRad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(a.latitude)) * Math.cos(toRad(b.latitude)) * Math.sin(dLng / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.min(1, Math.sqrt(h)));
}

function toRad(degrees: number): number {
  return (degrees * Math.PI) / 180;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function wrap(longitude: number): number {
  return ((((longitude + 180) % 360) + 360) % 360) - 180;
}

import turfArea from '@turf/area';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import type { FieldProblem } from './errors';

/**
 * An area search's area (POST /leads/batches with `area`, POST /leads/quotes; docs/api.md#area-searches,
 * decision 039). Coordinates are WGS 84 degrees; GeoJSON positions are [longitude, latitude] (RFC 7946 §3.1.1).
 */
export type AreaInput =
  | { place: string }
  | { bbox: { south: number; west: number; north: number; east: number } }
  | { circle: { center: { lat: number; lng: number }; radiusMeters: number } }
  | { type: 'Polygon'; coordinates: number[][][] }
  | { type: 'MultiPolygon'; coordinates: number[][][][] };

export interface LatLng {
  latitude: number;
  longitude: number;
}

/** google.geo.type.Viewport's shape: `low` south-west, `high` north-east. */
export interface Rect {
  low: LatLng;
  high: LatLng;
}

/**
 * The area as the tiling and the clipping use it: always polygons (a bbox, a place's viewport and a circle are
 * turned into one), with its bounding rectangle. A circle becomes a 64-gon inscribed in it.
 */
export interface ResolvedArea {
  kind: 'place' | 'bbox' | 'circle' | 'polygon';
  /** the GeoJSON MultiPolygon the clipping tests against */
  polygons: number[][][][];
  bounds: Rect;
  /** geodesic area, km² */
  areaKm2: number;
}

/** Limits, each documented in docs/api.md#area-searches. */
export const AREA_LIMITS = {
  /** positions over all rings of a polygon or multipolygon */
  maxVertices: 1_000,
  /** a metropolitan area; a country-sized area is many searches, not one */
  maxAreaKm2: 20_000,
  maxRadiusMeters: 80_000,
  /** the smallest circle worth a search: one Google rectangle at the minimum tile size */
  minRadiusMeters: 50,
  maxPlaceLength: 200,
  /** a bounding box no wider than this in latitude and longitude (degrees) */
  maxSpanDegrees: 3,
} as const;

const CIRCLE_SEGMENTS = 64;
const EARTH_RADIUS_M = 6_371_008.8;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks an area and turns it into polygons: every problem at once, with pointers under `base` (`#/area`).
 * A place is returned unresolved (`place`): its viewport comes from the provider (resolveAreaPlace).
 */
export function checkArea(input: unknown, base = '#/area'): { area: ResolvedArea | null; place: string | null; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const fail = (pointer: string, detail: string) => {
    problems.push({ pointer: `${base}${pointer}`, detail });
    return { area: null, place: null, problems };
  };
  if (!isObj(input)) return fail('', 'area must be an object: { place }, { bbox }, { circle } or a GeoJSON Polygon or MultiPolygon');
  const forms = ['place', 'bbox', 'circle', 'type'].filter((key) => key in input);
  if (forms.length !== 1) return fail('', 'area takes exactly one of: place, bbox, circle, or a GeoJSON geometry (type and coordinates)');
  const allowed: Record<string, string[]> = { place: ['place'], bbox: ['bbox'], circle: ['circle'], type: ['type', 'coordinates'] };
  for (const key of Object.keys(input)) {
    if (!allowed[forms[0]!]!.includes(key)) problems.push({ pointer: `${base}/${key}`, detail: `${key} is not a field of this area` });
  }
  if (problems.length > 0) return { area: null, place: null, problems };

  if ('place' in input) {
    const place = input.place;
    if (typeof place !== 'string' || place.trim() === '' || place.trim().length > AREA_LIMITS.maxPlaceLength)
      return fail('/place', `place must be a non-empty name of at most ${AREA_LIMITS.maxPlaceLength} characters ("Chicago, US")`);
    return { area: null, place: place.trim(), problems };
  }
  if ('bbox' in input) return withArea(checkBbox(input.bbox, `${base}/bbox`, problems), problems, base);
  if ('circle' in input) return withArea(checkCircle(input.circle, `${base}/circle`, problems), problems, base);
  return withArea(checkGeoJson(input, base, problems), problems, base);
}

function withArea(area: ResolvedArea | null, problems: FieldProblem[], base: string) {
  if (area !== null && area.areaKm2 > AREA_LIMITS.maxAreaKm2)
    problems.push({
      pointer: base,
      detail: `the area is ${Math.round(area.areaKm2)} km²; at most ${AREA_LIMITS.maxAreaKm2} km² are searched at once`,
    });
  if (area !== null && area.areaKm2 <= 0) problems.push({ pointer: base, detail: 'the area is empty (zero km²)' });
  return { area: problems.length === 0 ? area : null, place: null, problems };
}

function checkBbox(raw: unknown, at: string, problems: FieldProblem[]): ResolvedArea | null {
  if (!isObj(raw)) {
    problems.push({ pointer: at, detail: 'bbox must be { south, west, north, east } in degrees' });
    return null;
  }
  const keys = ['south', 'west', 'north', 'east'] as const;
  for (const key of Object.keys(raw))
    if (!(keys as readonly string[]).includes(key)) problems.push({ pointer: `${at}/${key}`, detail: `${key} is not a field of bbox` });
  for (const key of keys) {
    const value = raw[key];
    const max = key === 'south' || key === 'north' ? 90 : 180;
    if (!isNum(value) || value < -max || value > max)
      problems.push({ pointer: `${at}/${key}`, detail: `${key} must be a number in -${max}..${max}` });
  }
  if (problems.length > 0) return null;
  const { south, west, north, east } = raw as Record<(typeof keys)[number], number>;
  if (south >= north) problems.push({ pointer: `${at}/north`, detail: 'north must be greater than south' });
  // An area across the antimeridian would need two rectangles: refused rather than guessed.
  if (west >= east)
    problems.push({ pointer: `${at}/east`, detail: 'east must be greater than west (an area across the antimeridian is not supported)' });
  if (north - south > AREA_LIMITS.maxSpanDegrees || east - west > AREA_LIMITS.maxSpanDegrees)
    problems.push({ pointer: at, detail: `a bbox spans at most ${AREA_LIMITS.maxSpanDegrees} degrees each way` });
  if (problems.length > 0) return null;
  return rectArea('bbox', { low: { latitude: south, longitude: west }, high: { latitude: north, longitude: east } });
}

/** A rectangle as an area (a bbox, or a place's viewport). */
export function rectArea(kind: 'bbox' | 'place', rect: Rect): ResolvedArea {
  const { low, high } = rect;
  const ring = [
    [low.longitude, low.latitude],
    [high.longitude, low.latitude],
    [high.longitude, high.latitude],
    [low.longitude, high.latitude],
    [low.longitude, low.latitude],
  ];
  return finish(kind, [[ring]]);
}

function checkCircle(raw: unknown, at: string, problems: FieldProblem[]): ResolvedArea | null {
  if (!isObj(raw)) {
    problems.push({ pointer: at, detail: 'circle must be { center: { lat, lng }, radiusMeters }' });
    return null;
  }
  for (const key of Object.keys(raw))
    if (key !== 'center' && key !== 'radiusMeters') problems.push({ pointer: `${at}/${key}`, detail: `${key} is not a field of circle` });
  const center = raw.center;
  if (!isObj(center) || !isNum(center.lat) || !isNum(center.lng) || Math.abs(center.lat) > 85 || Math.abs(center.lng) > 180)
    problems.push({ pointer: `${at}/center`, detail: 'center must be { lat: -85..85, lng: -180..180 }' });
  else
    for (const key of Object.keys(center))
      if (key !== 'lat' && key !== 'lng') problems.push({ pointer: `${at}/center/${key}`, detail: `${key} is not a field of center` });
  const radius = raw.radiusMeters;
  if (!isNum(radius) || radius < AREA_LIMITS.minRadiusMeters || radius > AREA_LIMITS.maxRadiusMeters)
    problems.push({
      pointer: `${at}/radiusMeters`,
      detail: `radiusMeters must be a number in ${AREA_LIMITS.minRadiusMeters}..${AREA_LIMITS.maxRadiusMeters}`,
    });
  if (problems.length > 0) return null;
  const { lat, lng } = center as { lat: number; lng: number };
  const ring: number[][] = [];
  for (let i = 0; i < CIRCLE_SEGMENTS; i++) {
    const bearing = (2 * Math.PI * i) / CIRCLE_SEGMENTS;
    ring.push(destination(lat, lng, radius as number, bearing));
  }
  ring.push(ring[0]!);
  if (ring.some(([x]) => x! <= -180 || x! >= 180)) {
    problems.push({ pointer: at, detail: 'a circle across the antimeridian is not supported' });
    return null;
  }
  return finish('circle', [[ring]]);
}

/** The point `meters` from (lat, lng) along `bearing` (radians), as [lng, lat] (a great circle on a sphere). */
function destination(lat: number, lng: number, meters: number, bearing: number): number[] {
  const d = meters / EARTH_RADIUS_M;
  const φ1 = (lat * Math.PI) / 180;
  const λ1 = (lng * Math.PI) / 180;
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(bearing));
  const λ2 = λ1 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
  return [(λ2 * 180) / Math.PI, (φ2 * 180) / Math.PI];
}

/** RFC 7946 §3.1.6: a ring is four or more positions, the first and last equal. */
function checkGeoJson(raw: Record<string, unknown>, base: string, problems: FieldProblem[]): ResolvedArea | null {
  const type = raw.type;
  if (type !== 'Polygon' && type !== 'MultiPolygon') {
    problems.push({ pointer: `${base}/type`, detail: 'type must be "Polygon" or "MultiPolygon" (GeoJSON, RFC 7946)' });
    return null;
  }
  const coords = raw.coordinates;
  if (!Array.isArray(coords) || coords.length === 0) {
    problems.push({
      pointer: `${base}/coordinates`,
      detail: `coordinates must be a non-empty array of ${type === 'Polygon' ? 'rings' : 'polygons'}`,
    });
    return null;
  }
  const polygons = (type === 'Polygon' ? [coords] : coords) as unknown[];
  let vertices = 0;
  const checked: number[][][][] = [];
  polygons.forEach((polygon, p) => {
    const pAt = type === 'Polygon' ? `${base}/coordinates` : `${base}/coordinates/${p}`;
    if (!Array.isArray(polygon) || polygon.length === 0) {
      problems.push({ pointer: pAt, detail: 'a polygon is a non-empty array of rings (the outer ring first, then holes)' });
      return;
    }
    const rings: number[][][] = [];
    polygon.forEach((ring, r) => {
      const rAt = `${pAt}/${r}`;
      if (!Array.isArray(ring) || ring.length < 4) {
        problems.push({ pointer: rAt, detail: 'a ring has at least four positions, the last equal to the first' });
        return;
      }
      vertices += ring.length;
      let ok = true;
      ring.forEach((position, i) => {
        if (
          !Array.isArray(position) ||
          position.length < 2 ||
          position.length > 3 ||
          !position.every(isNum) ||
          Math.abs(position[0] as number) > 180 ||
          Math.abs(position[1] as number) > 90
        ) {
          if (ok) problems.push({ pointer: `${rAt}/${i}`, detail: 'a position is [longitude -180..180, latitude -90..90]' });
          ok = false;
        }
      });
      if (!ok) return;
      const first = ring[0] as number[];
      const last = ring[ring.length - 1] as number[];
      if (first[0] !== last[0] || first[1] !== last[1]) {
        problems.push({ pointer: rAt, detail: 'the ring is not closed: its last position must equal its first' });
        return;
      }
      const distinct = new Set((ring as number[][]).map((pos) => `${pos[0]},${pos[1]}`));
      if (distinct.size < 3) {
        problems.push({ pointer: rAt, detail: 'a ring needs at least three distinct positions' });
        return;
      }
      const lngs = (ring as number[][]).map((pos) => pos[0]!);
      if (Math.max(...lngs) - Math.min(...lngs) > 180) {
        problems.push({ pointer: rAt, detail: 'a ring across the antimeridian is not supported' });
        return;
      }
      rings.push((ring as number[][]).map((pos) => [pos[0]!, pos[1]!]));
    });
    if (rings.length === polygon.length) checked.push(rings);
  });
  if (vertices > AREA_LIMITS.maxVertices)
    problems.push({
      pointer: `${base}/coordinates`,
      detail: `at most ${AREA_LIMITS.maxVertices} positions in all (this area has ${vertices})`,
    });
  if (problems.length > 0) return null;
  const area = finish('polygon', checked);
  if (
    area.bounds.high.latitude - area.bounds.low.latitude > AREA_LIMITS.maxSpanDegrees ||
    area.bounds.high.longitude - area.bounds.low.longitude > AREA_LIMITS.maxSpanDegrees
  )
    problems.push({ pointer: base, detail: `an area spans at most ${AREA_LIMITS.maxSpanDegrees} degrees each way` });
  return area;
}

function finish(kind: ResolvedArea['kind'], polygons: number[][][][]): ResolvedArea {
  let south = 90;
  let north = -90;
  let west = 180;
  let east = -180;
  for (const polygon of polygons)
    for (const [lng, lat] of polygon[0]!) {
      south = Math.min(south, lat!);
      north = Math.max(north, lat!);
      west = Math.min(west, lng!);
      east = Math.max(east, lng!);
    }
  const areaKm2 = turfArea({ type: 'MultiPolygon', coordinates: polygons }) / 1e6;
  return { kind, polygons, bounds: { low: { latitude: south, longitude: west }, high: { latitude: north, longitude: east } }, areaKm2 };
}

/** Whether `point` is inside the area (a polygon's inside, holes excluded; its boundary counts as inside). */
export function areaContains(area: Pick<ResolvedArea, 'polygons'>, point: LatLng): boolean {
  return booleanPointInPolygon([point.longitude, point.latitude], { type: 'MultiPolygon', coordinates: area.polygons });
}

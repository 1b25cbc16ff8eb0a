import { AREA_LIMITS } from '@leadgen/domain';
import { d, int, nullable, object, str, time } from './openapi-schemas';

// Area searches (docs/api.md#area-searches, decision 039): their schemas (the paths are declared in
// routes/leads/quotes-endpoints.ts and batches-endpoints.ts; the request bodies are derived from area-schema.ts).

const num = (description: string, minimum: number, maximum: number) => d(description, { type: 'number', minimum, maximum });
const position = { type: 'array', minItems: 2, maxItems: 3, items: { type: 'number' } };
const ring = { type: 'array', minItems: 4, items: position };

const areaForms = [
  object({
    place: d('A place name resolved to its viewport by the source ("Chicago, US")', {
      type: 'string',
      minLength: 1,
      maxLength: AREA_LIMITS.maxPlaceLength,
    }),
  }),
  object({
    bbox: d(
      'A box of latitudes and longitudes',
      object({
        south: num('Southern latitude', -90, 90),
        west: num('Western longitude', -180, 180),
        north: num('Northern latitude (greater than south)', -90, 90),
        east: num('Eastern longitude (greater than west: no area across the antimeridian)', -180, 180),
      }),
    ),
  }),
  object({
    circle: d(
      'A circle around a point',
      object({
        center: d('Its centre', object({ lat: num('Latitude', -85, 85), lng: num('Longitude', -180, 180) })),
        radiusMeters: num('Radius in metres', AREA_LIMITS.minRadiusMeters, AREA_LIMITS.maxRadiusMeters),
      }),
    ),
  }),
  object({
    type: d('GeoJSON (RFC 7946)', { type: 'string', enum: ['Polygon'] }),
    coordinates: d('Rings of [longitude, latitude], each closed (last = first), the outer ring first', {
      type: 'array',
      minItems: 1,
      items: ring,
    }),
  }),
  object({
    type: d('GeoJSON (RFC 7946)', { type: 'string', enum: ['MultiPolygon'] }),
    coordinates: d('Polygons, each an array of closed rings', {
      type: 'array',
      minItems: 1,
      items: { type: 'array', minItems: 1, items: ring },
    }),
  }),
];

const areaFacts = d(
  'The area searched, as resolved',
  object({
    kind: d('How the area was given', { type: 'string', enum: ['place', 'bbox', 'circle', 'polygon'] }),
    bounds: d(
      'Its bounding box',
      object({
        south: d('Southern latitude', { type: 'number' }),
        west: d('Western longitude', { type: 'number' }),
        north: d('Northern latitude', { type: 'number' }),
        east: d('Eastern longitude', { type: 'number' }),
      }),
    ),
    areaKm2: d('Its size in km²', { type: 'number', minimum: 0 }),
  }),
);

export const areaSchemas = {
  Area: {
    description: `The area of an area search: a place, a bbox, a circle, or a GeoJSON Polygon or MultiPolygon (at most ${AREA_LIMITS.maxVertices} positions, ${AREA_LIMITS.maxAreaKm2} km², ${AREA_LIMITS.maxSpanDegrees} degrees each way)`,
    oneOf: areaForms,
  },
  Quote: object(
    {
      quoteId: d('The quote id (`quo_…`): POST /leads/batches with { quoteId } runs it', str),
      provider: d('Who answered the survey: google_places or sandbox', { type: 'string', enum: ['google_places', 'sandbox'] }),
      request: d('The request as sent', { type: 'object', additionalProperties: true }),
      area: areaFacts,
      places: d('Places inside the area, each counted once: what a filter-free run delivers', int()),
      credits: d(
        'What a run from this quote charges when every place is delivered (an upper bound when leads are dropped after they are fetched)',
        int(),
      ),
      paidCalls: d('The Text Search calls a run from this quote makes (at the lead field mask)', int()),
      tiles: d(
        'The tiling',
        object({
          searched: d('Tiles the survey listed', int()),
          toRun: d('Tiles a run from this quote searches: unsaturated tiles that own a place', int()),
          saturatedAtMinimum: d('Tiles still saturated at the minimum size: there may be more places there than one search lists', int()),
        }),
      ),
      upstreamCalls: d(
        'What the quote cost the operator upstream',
        object({
          placeResolution: d('Calls to resolve a place name (Text Search Pro)', int()),
          idsOnly: d('Text Search calls with the IDs-only mask (tiles inside the area)', int()),
          withLocation: d('Text Search calls with ids and locations (tiles across the area’s edge)', int()),
        }),
      ),
      createdAt: d('When the quote was made', time),
      expiresAt: d('After this the quote cannot be run (24 hours)', time),
    },
    undefined,
    { description: 'A stored quote of an area search; it costs the account nothing' },
  ),
  BatchArea: object(
    {
      area: areaFacts,
      quoteId: d('The quote the batch was made from, or null', nullable(str)),
      maxResults: d(
        'The batch-wide maxResults: the most leads the area search delivers and charges for across its tiles, or null',
        nullable(int()),
      ),
      tiles: d(
        'The area batch’s tiles',
        object({
          total: d('Tiles so far (a saturated tile adds its quarters)', int()),
          searching: d('Tiles whose child is queued or running', int()),
          done: d('Tiles that listed fewer than 60 places: all of theirs', int()),
          split: d('Saturated tiles split into their quarters', int()),
          saturatedAtMinimum: d('Saturated tiles at the minimum size, recorded, not split', int()),
          notSearched: d('Tiles whose child ended before its search did (cancelled, out of budget, failed)', int()),
        }),
      ),
      skipped: d(
        'What the area search dropped',
        object({ outsideArea: d('Places the tiles listed outside the area: neither delivered nor billed', int()) }),
      ),
    },
    undefined,
    { description: 'An area batch’s area, tiles and quote' },
  ),
};

import { FakeServer, type FakeResponse, makeToken, readToken, type RecordedRequest, shuffled } from './fake-server';

/**
 * A fake of Places API (New) Text Search, answering as Google documents it (src/google-places/UPSTREAM.md
 * gives the source of each point):
 * - `POST /v1/places:searchText`, key in `X-Goog-Api-Key`: a missing, wrong or expired key is
 *   400 INVALID_ARGUMENT with ErrorInfo reason API_KEY_INVALID in `details` (not 401/403); a key
 *   whose project has the API disabled (`apiDisabled`) is 403 PERMISSION_DENIED, reason
 *   SERVICE_DISABLED; quota (`failNext({ status: 429 })`) is 429 RESOURCE_EXHAUSTED, no Retry-After
 *   header, and with `retryDelay` set a google.rpc.RetryInfo in `details`;
 * - `X-Goog-FieldMask` is required (400 INVALID_ARGUMENT without it), and the answer holds only
 *   the masked fields: `nextPageToken` too is returned only when the mask names it;
 * - `pageSize` defaults to 20, values above 20 are set to 20, negative ones are 400;
 * - at most 60 results per query, in pages linked by `nextPageToken`; a page token is only valid
 *   with every other parameter repeated unchanged (else 400), and tokens can be expired at will;
 * - where it searches: a text query that names a place (one of `placeNames`, or "in/near <place>")
 *   is searched there and a `locationBias` beside it is ignored; `locationRestriction.rectangle`
 *   returns no place outside it; `locationBias` with `locationRestriction` is 400; `regionCode`
 *   restricts nothing, so a place across the border in `places` comes back (it only biases);
 * - pure service-area businesses (`pureServiceAreaBusiness: true`) only with
 *   `includePureServiceAreaBusinesses: true`; they have no `location` or `formattedAddress`
 *   (`serviceAt`, never returned, is where a rectangle finds them);
 * - `minRating` ("Filter out results whose average user rating is strictly less than this limit. A valid
 *   value must be a float between 0 and 5 (inclusively) at a 0.5 cadence", service proto
 *   `SearchTextRequest.min_rating`: another value is 400) and `priceLevels` ("Used to restrict the search to
 *   places that are marked as certain price levels", `SearchTextRequest.price_levels`, PRICE_LEVEL_* names):
 *   a place without a rating or price level does not pass them;
 * - a place's `location` (a LatLng) and `viewport` (`low`/`high`, google.geo.type.Viewport) are ordinary masked
 *   fields (place proto; both are Text Search Pro fields on the usage-and-billing page). A query that names one
 *   of `localities` (a city) lists that locality first, with its viewport: how an area's place name resolves;
 * - the 60-result cap is per query, over pages of at most 20: a rectangle holding more lists 60 (guide);
 * - no result: `{}`;
 * - errors as google.rpc.Status: `{ error: { code, message, status, details } }`.
 *
 * `answers` keeps the place ids each request was answered with, so a test can show that every call
 * brought something new.
 */
export interface FakePlace {
  id: string;
  displayName?: { text: string; languageCode: string };
  formattedAddress?: string;
  addressComponents?: Array<{ longText: string; shortText: string; types: string[]; languageCode?: string }>;
  pureServiceAreaBusiness?: boolean;
  location?: { latitude: number; longitude: number };
  internationalPhoneNumber?: string;
  nationalPhoneNumber?: string;
  websiteUri?: string;
  rating?: number;
  types?: string[];
  businessStatus?: string;
  // Decision 038, as the place proto (googleapis google/maps/places/v1/place.proto) documents each field:
  /** "The type of the primary place type" ("dental_clinic"), one of Table A */
  primaryType?: string;
  /** "A URL providing more information about this place" on Google Maps */
  googleMapsUri?: string;
  /** "Number of minutes this place's timezone is currently offset from UTC" (Pro SKU) */
  utcOffsetMinutes?: number;
  /** "The total number of reviews (with or without text) for this place" (Enterprise SKU) */
  userRatingCount?: number;
  /** `PriceLevel` enum: PRICE_LEVEL_FREE, _INEXPENSIVE, _MODERATE, _EXPENSIVE, _VERY_EXPENSIVE (Enterprise SKU) */
  priceLevel?: string;
  /** `OpeningHours`: `periods` of `{ open, close }` `Point`s (`day` 0..6, 0 Sunday; `hour`, `minute`), `weekdayDescriptions` one line per day, `openNow` (Enterprise SKU) */
  regularOpeningHours?: {
    openNow?: boolean;
    periods: Array<{ open: { day: number; hour: number; minute: number }; close?: { day: number; hour: number; minute: number } }>;
    weekdayDescriptions: string[];
  };
  viewport?: { low: { latitude: number; longitude: number }; high: { latitude: number; longitude: number } };
  /** not a Google field: where a rectangle finds a service-area business (Google does not say) */
  serviceAt?: { latitude: number; longitude: number };
}

type LatLng = { latitude: number; longitude: number };
type Rect = { low: LatLng; high: LatLng };

const STATUS_NAME: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export function googleError(code: number, message = 'fake upstream error', reason?: string, retryDelay?: string): unknown {
  const details: unknown[] =
    reason === undefined
      ? []
      : [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason,
            domain: 'googleapis.com',
            metadata: { service: 'places.googleapis.com' },
          },
        ];
  if (retryDelay !== undefined) details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay });
  return { error: { code, message, status: STATUS_NAME[code] ?? 'UNKNOWN', details } };
}

/** address components as Google gives them: long and short text, types, for a locality in a country */
export function components(
  locality: string,
  region: string,
  country: string,
  countryName: string,
): NonNullable<FakePlace['addressComponents']> {
  return [
    { longText: locality, shortText: locality, types: ['locality', 'political'], languageCode: 'en' },
    { longText: region, shortText: region, types: ['administrative_area_level_1', 'political'], languageCode: 'en' },
    { longText: countryName, shortText: country, types: ['country', 'political'], languageCode: 'en' },
  ];
}

export function makePlaces(count: number, prefix = 'p'): FakePlace[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `ChIJ${prefix}${String(i).padStart(4, '0')}`,
    displayName: { text: `Business ${prefix}${i}`, languageCode: 'en' },
    formattedAddress: `${i} Main St, Austin, TX 78701, USA`,
    addressComponents: components('Austin', 'TX', 'US', 'United States'),
    location: { latitude: 30.27 + (i % 10) * 0.01, longitude: -97.74 - Math.floor(i / 10) * 0.01 },
    internationalPhoneNumber: `+1 512-555-${String(1000 + i)}`,
    nationalPhoneNumber: `(512) 555-${String(1000 + i)}`,
    websiteUri: `https://business-${prefix}${i}.example`,
    rating: 3 + (i % 20) / 10,
    types: ['dental_clinic', 'dentist', 'health', 'point_of_interest', 'establishment'],
    businessStatus: 'OPERATIONAL',
    primaryType: 'dental_clinic',
    googleMapsUri: `https://maps.google.com/?cid=${1000000 + i}`,
    utcOffsetMinutes: -360,
    userRatingCount: 10 * i,
    priceLevel: 'PRICE_LEVEL_MODERATE',
    regularOpeningHours: {
      openNow: true,
      periods: [1, 2, 3, 4, 5].map((day) => ({ open: { day, hour: 9, minute: 0 }, close: { day, hour: 17, minute: 0 } })),
      weekdayDescriptions: [
        'Monday: 9:00 AM – 5:00 PM',
        'Tuesday: 9:00 AM – 5:00 PM',
        'Wednesday: 9:00 AM – 5:00 PM',
        'Thursday: 9:00 AM – 5:00 PM',
        'Friday: 9:00 AM – 5:00 PM',
        'Saturday: Closed',
        'Sunday: Closed',
      ],
    },
  }));
}

export class GooglePlacesFake extends FakeServer {
  places: FakePlace[] = [];
  /** place names the fake recognises in a text query (besides "in/near <place>") */
  placeNames: string[] = ['Austin', 'United States'];
  /** the order a query lists its matches in: by default, one that depends on the query text and area */
  rank: (body: Record<string, unknown>, matches: FakePlace[]) => FakePlace[] = (body, matches) =>
    shuffled(matches, `${String(body.textQuery)}|${JSON.stringify(body.locationRestriction ?? null)}`);
  /** cities a text query can name: the locality place, with its `viewport`, answers such a query */
  localities: FakePlace[] = [];
  /** the place ids each answered request listed, in request order */
  readonly answers: string[][] = [];
  /** the project behind the key has Places API (New) disabled */
  apiDisabled = false;
  /** with failNext({ status: 429 }): the RetryInfo.retryDelay put in the error's details */
  retryDelay: string | undefined;
  /** bumped by expireTokens(): older page tokens are refused */
  private generation = 0;

  constructor(readonly apiKey = 'google-test-key') {
    super(
      (request) => this.answer(request),
      (status) => googleError(status, 'fake upstream error', undefined, status === 429 ? this.retryDelay : undefined),
    );
  }

  override reset(): void {
    super.reset();
    this.answers.length = 0;
    this.localities = [];
    this.retryDelay = undefined;
  }

  expireTokens(): void {
    this.generation++;
  }

  /** Whether the text names a place: Google then searches there, whatever the location bias says. */
  namesPlace(text: string): boolean {
    const lower = text.toLowerCase();
    return /\b(in|near)\s+\S/.test(lower) || this.placeNames.some((name) => lower.includes(name.toLowerCase()));
  }

  private answer(request: RecordedRequest): FakeResponse {
    if (request.method !== 'POST' || request.path !== '/v1/places:searchText') return { status: 404, body: googleError(404, 'Not found') };
    if (request.headers['x-goog-api-key'] !== this.apiKey) {
      return { status: 400, body: googleError(400, 'API key not valid. Please pass a valid API key.', 'API_KEY_INVALID') };
    }
    if (this.apiDisabled) {
      return {
        status: 403,
        body: googleError(403, 'Places API (New) has not been used in project 0 before or it is disabled.', 'SERVICE_DISABLED'),
      };
    }
    const mask = request.headers['x-goog-fieldmask'];
    if (typeof mask !== 'string' || mask.trim() === '') {
      return {
        status: 400,
        body: googleError(400, 'FieldMask is a required parameter. See https://cloud.google.com/apis/docs/system-parameters'),
      };
    }
    const body = request.body;
    if (body === null || typeof body !== 'object' || typeof (body as Record<string, unknown>).textQuery !== 'string') {
      return { status: 400, body: googleError(400, 'Empty text_query.') };
    }
    const { pageToken, ...params } = body as Record<string, unknown>;
    if (params.locationBias !== undefined && params.locationRestriction !== undefined) {
      return { status: 400, body: googleError(400, 'location_bias cannot be set along with location_restriction.') };
    }
    const minRating = params.minRating;
    if (minRating !== undefined && (typeof minRating !== 'number' || minRating < 0 || minRating > 5 || (minRating * 2) % 1 !== 0)) {
      return { status: 400, body: googleError(400, 'Invalid min_rating: must be between 0 and 5 at a 0.5 cadence.') };
    }
    const rawSize = params.pageSize ?? 20;
    if (typeof rawSize !== 'number' || rawSize < 0) return { status: 400, body: googleError(400, 'Invalid page_size.') };
    const pageSize = rawSize === 0 ? 20 : Math.min(20, rawSize);
    const signature = JSON.stringify(params);
    let offset = 0;
    if (pageToken !== undefined) {
      const token = readToken(pageToken);
      if (!token || token.sig !== signature || token.gen !== this.generation || typeof token.offset !== 'number') {
        return { status: 400, body: googleError(400, 'Invalid page_token. Request parameters must match the previous request.') };
      }
      offset = token.offset;
    }
    const matches = this.search(params).slice(0, 60);
    const page = matches.slice(offset, offset + pageSize);
    this.answers.push(page.map((place) => place.id));
    const answer: Record<string, unknown> = {};
    if (page.length > 0) answer.places = page.map((place) => masked(place, mask));
    if (offset + pageSize < matches.length && maskNames(mask, 'nextPageToken')) {
      answer.nextPageToken = makeToken({ sig: signature, offset: offset + pageSize, gen: this.generation });
    }
    return { status: 200, body: answer };
  }

  /** Every match of a query, in the order it lists them (regionCode filters nothing: it only biases). */
  private search(params: Record<string, unknown>): FakePlace[] {
    const text = String(params.textQuery).toLowerCase();
    const locality = this.localities.find((place) => place.displayName && text === place.displayName.text.toLowerCase());
    if (locality !== undefined) return [locality];
    const withSab = params.includePureServiceAreaBusinesses === true;
    const restriction = (params.locationRestriction as { rectangle?: Rect } | undefined)?.rectangle;
    const minRating = typeof params.minRating === 'number' ? params.minRating : null;
    const priceLevels = Array.isArray(params.priceLevels) ? (params.priceLevels as unknown[]) : null;
    const pool = this.places.filter((place) => {
      if (place.pureServiceAreaBusiness === true && !withSab) return false;
      if (minRating !== null && (place.rating === undefined || place.rating < minRating)) return false;
      if (priceLevels !== null && (place.priceLevel === undefined || !priceLevels.includes(place.priceLevel))) return false;
      if (restriction === undefined) return true;
      const at = place.location ?? place.serviceAt;
      return at !== undefined && inside(restriction, at);
    });
    const bias = (params.locationBias as { circle?: { center: LatLng } } | undefined)?.circle?.center;
    // A bias re-ranks only when the text names no place; Google ignores it otherwise.
    if (bias !== undefined && !this.namesPlace(String(params.textQuery))) {
      return [...pool].sort((a, b) => distance(bias, a.location ?? a.serviceAt) - distance(bias, b.location ?? b.serviceAt));
    }
    return this.rank(params, pool);
  }
}

function inside(rect: Rect, at: LatLng): boolean {
  return (
    at.latitude >= rect.low.latitude &&
    at.latitude <= rect.high.latitude &&
    at.longitude >= rect.low.longitude &&
    at.longitude <= rect.high.longitude
  );
}

function distance(from: LatLng, to: LatLng | undefined): number {
  return to === undefined ? Infinity : Math.hypot(from.latitude - to.latitude, from.longitude - to.longitude);
}

function maskNames(mask: string, field: string): boolean {
  return mask
    .split(',')
    .map((f) => f.trim())
    .some((f) => f === '*' || f === field);
}

function masked(place: FakePlace, mask: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(place)) {
    if (key === 'serviceAt') continue;
    if (maskNames(mask, `places.${key}`) || maskNames(mask, 'places')) out[key] = value;
  }
  return out;
}

export async function startGooglePlacesFake(apiKey?: string): Promise<GooglePlacesFake> {
  return new GooglePlacesFake(apiKey).start();
}

import { ProviderError } from '../lead-provider';
import type { UpstreamClient } from '../upstream';

/**
 * The fields we read, and nothing else: the bill for a Text Search call follows the costliest
 * field in the mask. Phone, website and rating put the call in the Enterprise tier whatever else
 * is asked; `places.location` feeds the rectangles, `places.addressComponents` the country check
 * and a service-area business's locality, `places.pureServiceAreaBusiness` says which has no address.
 */
export const FIELD_MASK = [
  'places.id',
  'places.displayName',
  'places.formattedAddress',
  'places.addressComponents',
  'places.pureServiceAreaBusiness',
  'places.location',
  'places.internationalPhoneNumber',
  'places.nationalPhoneNumber',
  'places.websiteUri',
  'places.rating',
  'places.types',
  'places.businessStatus',
  'nextPageToken',
].join(',');

/** The API's own maximum; also the cheapest choice, since each call is billed whatever its size. */
export const PAGE_SIZE = 20;

/** Text Search lists at most this many places for one query, however many pages are asked for. */
export const MAX_RESULTS_PER_QUERY = 60;

export interface LatLng {
  latitude: number;
  longitude: number;
}

/** google.geo.type.Viewport: `low` is the south-west corner, `high` the north-east one. */
export interface Rect {
  low: LatLng;
  high: LatLng;
}

export interface TextSearchBody {
  textQuery: string;
  pageSize: number;
  /** formats and biases the answer; it does not restrict it to the country (UPSTREAM.md) */
  regionCode?: string;
  /** a hard limit: no place outside it is returned; only with a text query that names no place */
  locationRestriction?: { rectangle: Rect };
  includePureServiceAreaBusinesses?: boolean;
  pageToken?: string;
}

export interface AddressComponent {
  longText?: string;
  shortText?: string;
  types?: string[];
}

export interface Place {
  id: string;
  /** only in an area's place-name resolution (area-survey.ts): the place's preferred viewport */
  viewport?: Rect;
  displayName?: { text?: string };
  formattedAddress?: string;
  addressComponents?: AddressComponent[];
  pureServiceAreaBusiness?: boolean;
  location?: LatLng;
  internationalPhoneNumber?: string;
  nationalPhoneNumber?: string;
  websiteUri?: string;
  rating?: number;
  types?: string[];
  businessStatus?: string;
}

export interface TextSearchPage {
  places: Place[];
  nextPageToken: string | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function malformed(what: string): ProviderError {
  return new ProviderError('provider_error', `google_places: unexpected answer (${what})`);
}

/** Checks the answer's shape; an empty result set is documented as `{}`. */
export function parseTextSearch(body: unknown): TextSearchPage {
  if (!isObject(body)) throw malformed('not an object');
  const raw = body.places ?? [];
  if (!Array.isArray(raw)) throw malformed('places is not a list');
  const places: Place[] = [];
  for (const item of raw) {
    if (!isObject(item) || typeof item.id !== 'string' || item.id === '') throw malformed('a place without an id');
    places.push(item as unknown as Place);
  }
  const token = body.nextPageToken;
  return { places, nextPageToken: typeof token === 'string' && token !== '' ? token : null };
}

export async function searchText(
  client: UpstreamClient,
  body: TextSearchBody,
  signal: AbortSignal,
  deadline: number,
  fieldMask: string = FIELD_MASK,
): Promise<TextSearchPage> {
  const response = await client.request({
    method: 'POST',
    path: 'v1/places:searchText',
    headers: { 'x-goog-fieldmask': fieldMask },
    body,
    signal,
    deadline,
  });
  return parseTextSearch(response.body);
}

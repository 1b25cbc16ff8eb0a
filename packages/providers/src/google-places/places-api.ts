import { ProviderError } from '../lead-provider';
import type { UpstreamClient } from '../upstream';

/**
 * The fields we read, and nothing else: the bill for a Text Search call follows the costliest
 * field in the mask. Phone, website and rating put the call in the Enterprise tier whatever else
 * is asked; `places.location` (Pro tier, so free on top) feeds the sub-area split.
 */
export const FIELD_MASK = [
  'places.id',
  'places.displayName',
  'places.formattedAddress',
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

export interface LatLng {
  latitude: number;
  longitude: number;
}

export interface TextSearchBody {
  textQuery: string;
  pageSize: number;
  regionCode?: string;
  locationBias?: { circle: { center: LatLng; radius: number } };
  pageToken?: string;
}

export interface Place {
  id: string;
  displayName?: { text?: string };
  formattedAddress?: string;
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

export async function searchText(client: UpstreamClient, body: TextSearchBody, signal: AbortSignal, deadline: number): Promise<TextSearchPage> {
  const response = await client.request({
    method: 'POST',
    path: 'v1/places:searchText',
    headers: { 'x-goog-fieldmask': FIELD_MASK },
    body,
    signal,
    deadline,
  });
  return parseTextSearch(response.body);
}

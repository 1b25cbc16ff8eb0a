import type { LatLng, Rect } from '@leadgen/domain';
import { ProviderError } from '../lead-provider';
import type { UpstreamClient } from '../upstream';

/**
 * The fields we read, and nothing else: Google bills a Text Search at the costliest SKU of any field
 * in its mask ("Usage and billing"; the Place data fields page lists each field's Text Search SKU).
 * Pro: id, name, address and its components, location, types and primary type, status, Maps link, UTC
 * offset, the service-area flag. Enterprise adds phones, website, rating, review count, price level and
 * opening hours. `places.location` feeds the rectangles, `places.addressComponents` the country check.
 */
export const PRO_FIELDS = [
  'places.id',
  'places.displayName',
  'places.formattedAddress',
  'places.addressComponents',
  'places.pureServiceAreaBusiness',
  'places.location',
  'places.types',
  'places.primaryType',
  'places.businessStatus',
  'places.googleMapsUri',
  'places.utcOffsetMinutes',
  'nextPageToken',
] as const;

export const ENTERPRISE_FIELDS = [
  'places.internationalPhoneNumber',
  'places.nationalPhoneNumber',
  'places.websiteUri',
  'places.rating',
  'places.userRatingCount',
  'places.priceLevel',
  'places.regularOpeningHours',
] as const;

/** GOOGLE_PLACES_FIELDS: the Text Search SKU the mask incurs (decision 038). */
export type FieldTier = 'pro' | 'enterprise';

export function fieldMask(tier: FieldTier): string {
  return (tier === 'pro' ? [...PRO_FIELDS] : [...PRO_FIELDS, ...ENTERPRISE_FIELDS]).join(',');
}

/** The Enterprise mask, the default. */
export const FIELD_MASK = fieldMask('enterprise');

/** The API's own maximum; also the cheapest choice, since each call is billed whatever its size. */
export const PAGE_SIZE = 20;

/** Text Search lists at most this many places for one query, however many pages are asked for. */
export const MAX_RESULTS_PER_QUERY = 60;

export interface TextSearchBody {
  textQuery: string;
  pageSize: number;
  /** formats and biases the answer; it does not restrict it to the country (UPSTREAM.md) */
  regionCode?: string;
  /** a hard limit: no place outside it is returned; only with a text query that names no place */
  locationRestriction?: { rectangle: Rect };
  includePureServiceAreaBusinesses?: boolean;
  /** "Filter out results whose average user rating is strictly less than this limit" (0..5, in steps of 0.5: service proto) */
  minRating?: number;
  /** "Used to restrict the search to places that are marked as certain price levels" (service proto; PRICE_LEVEL_* names) */
  priceLevels?: string[];
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
  primaryType?: string;
  googleMapsUri?: string;
  utcOffsetMinutes?: number;
  userRatingCount?: number;
  /** PRICE_LEVEL_FREE, _INEXPENSIVE, _MODERATE, _EXPENSIVE, _VERY_EXPENSIVE (or _UNSPECIFIED) */
  priceLevel?: string;
  regularOpeningHours?: OpeningHours;
}

/** place proto `OpeningHours`: periods of `{ open, close }` points (`day` 0 = Sunday), and one text line per weekday. */
export interface OpeningHours {
  openNow?: boolean;
  periods?: Array<{ open?: OpeningPoint; close?: OpeningPoint }>;
  weekdayDescriptions?: string[];
}

export interface OpeningPoint {
  day?: number;
  hour?: number;
  minute?: number;
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
  mask: string = FIELD_MASK,
): Promise<TextSearchPage> {
  const response = await client.request({
    method: 'POST',
    path: 'v1/places:searchText',
    headers: { 'x-goog-fieldmask': mask },
    body,
    signal,
    deadline,
  });
  return parseTextSearch(response.body);
}

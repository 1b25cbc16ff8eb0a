import {
  BUSINESS_STATUSES,
  type BusinessStatus,
  fromUpstream,
  type GoogleMapsLead,
  type OpeningPeriod,
  type PlaceAddress,
  type PlaceDetails,
  type PriceLevel,
  upstreamProvenance,
} from '@leadgen/domain';
import type { ProviderLead } from '../lead-provider';
import type { OpeningHours, OpeningPoint, Place } from './places-api';

const CLOSED = new Set(['CLOSED_PERMANENTLY', 'CLOSED_TEMPORARILY']);

/** The provider name on every value Google answered (the job body's `provider`). */
export const GOOGLE_PLACES = 'google_places';

// Types every place carries; they say nothing about the business.
const GENERIC_TYPES = new Set(['point_of_interest', 'establishment']);

export function isClosed(place: Place): boolean {
  return typeof place.businessStatus === 'string' && CLOSED.has(place.businessStatus);
}

/** "dental_clinic" → "dental clinic" */
export function readableType(type: string): string {
  return type.replace(/_/g, ' ').trim();
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * Categories: the requested category first (it is what the place was found for), then the place's
 * own types in Google's order (primary type first), readable, without generic ones or repeats.
 */
export function categoriesOf(requested: string, types: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (value: string) => {
    const key = value.toLowerCase();
    if (value !== '' && !seen.has(key)) {
      seen.add(key);
      out.push(value);
    }
  };
  add(requested.trim());
  if (Array.isArray(types)) {
    for (const type of types) {
      if (typeof type === 'string' && !GENERIC_TYPES.has(type)) add(readableType(type));
    }
  }
  return out;
}

function component(place: Place, type: string): { longText: string | null; shortText: string | null } | null {
  const found = place.addressComponents?.find((c) => Array.isArray(c.types) && c.types.includes(type));
  return found ? { longText: str(found.longText), shortText: str(found.shortText) } : null;
}

/** The place's country (ISO code, upper case) from its address components; null when Google gave none. */
export function countryOf(place: Place): string | null {
  return component(place, 'country')?.shortText?.toUpperCase() ?? null;
}

/**
 * A business that serves its customers where they are and has no address Google shows (a plumber,
 * a mobile cleaner): Google flags it, and withholds its location-related fields.
 */
export function isServiceAreaBusiness(place: Place): boolean {
  return place.pureServiceAreaBusiness === true;
}

/** Google's "+1 650-253-0000" as E.164 ("+16502530000"); null for anything that is not a + and 8..15 digits. */
export function e164(value: unknown): string | null {
  const raw = str(value);
  if (raw === null || !raw.startsWith('+')) return null;
  const digits = raw.slice(1).replace(/[\s().-]/g, '');
  return /^[1-9]\d{7,14}$/.test(digits) ? `+${digits}` : null;
}

/** PRICE_LEVEL_MODERATE → "moderate"; PRICE_LEVEL_UNSPECIFIED and anything unknown → null. */
export function priceLevelOf(value: unknown): PriceLevel | null {
  if (typeof value !== 'string' || !value.startsWith('PRICE_LEVEL_')) return null;
  const level = value.slice('PRICE_LEVEL_'.length).toLowerCase();
  return (['free', 'inexpensive', 'moderate', 'expensive', 'very_expensive'] as const).find((l) => l === level) ?? null;
}

/** "moderate" → PRICE_LEVEL_MODERATE, as Google's `priceLevels` request field names it. */
export function googlePriceLevel(level: PriceLevel): string {
  return `PRICE_LEVEL_${level.toUpperCase()}`;
}

const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null);

function point(value: OpeningPoint | undefined): OpeningPeriod['open'] | null {
  const day = count(value?.day);
  if (value === undefined || day === null || day > 6) return null;
  return { day, hour: count(value.hour) ?? 0, minute: count(value.minute) ?? 0 };
}

/** place proto `OpeningHours` onto the lead's: a period without `close` is open around the clock from `open`. */
export function openingHoursOf(hours: OpeningHours | undefined): PlaceDetails['openingHours'] {
  if (hours === undefined || hours === null || typeof hours !== 'object') return null;
  const periods: OpeningPeriod[] = [];
  for (const period of Array.isArray(hours.periods) ? hours.periods : []) {
    const open = point(period?.open);
    if (open !== null) periods.push({ open, close: point(period?.close) });
  }
  const weekdayDescriptions = Array.isArray(hours.weekdayDescriptions)
    ? hours.weekdayDescriptions.filter((d): d is string => typeof d === 'string')
    : [];
  return periods.length === 0 && weekdayDescriptions.length === 0 ? null : { weekdayDescriptions, periods };
}

/** The address split as a CRM wants it; null when Google gave no components. */
export function addressOf(place: Place): PlaceAddress | null {
  if (!Array.isArray(place.addressComponents) || place.addressComponents.length === 0) return null;
  const number = component(place, 'street_number')?.longText ?? null;
  const route = component(place, 'route')?.longText ?? null;
  const street = route === null ? null : number === null ? route : `${number} ${route}`;
  return {
    street,
    locality: component(place, 'locality')?.longText ?? component(place, 'postal_town')?.longText ?? null,
    postalCode: component(place, 'postal_code')?.longText ?? null,
    region: component(place, 'administrative_area_level_1')?.shortText ?? null,
    countryCode: countryOf(place),
  };
}

function statusOf(value: unknown): BusinessStatus | null {
  return BUSINESS_STATUSES.find((s) => s === value) ?? null;
}

/** Google Maps' own fields of the place (decision 038); the Enterprise ones are null when the mask left them out. */
export function placeDetails(place: Place): PlaceDetails {
  const loc = place.location;
  const located = loc && Number.isFinite(loc.latitude) && Number.isFinite(loc.longitude);
  return {
    placeId: place.id.replace(/^places\//, ''),
    location: located ? { lat: loc.latitude, lng: loc.longitude } : null,
    addressComponents: addressOf(place),
    internationalPhone: e164(place.internationalPhoneNumber),
    reviewCount: count(place.userRatingCount),
    priceLevel: priceLevelOf(place.priceLevel),
    businessStatus: statusOf(place.businessStatus),
    openingHours: openingHoursOf(place.regularOpeningHours),
    googleMapsUri: str(place.googleMapsUri),
    primaryType: str(place.primaryType),
    types: Array.isArray(place.types) ? place.types.filter((t): t is string => typeof t === 'string') : [],
    utcOffsetMinutes:
      typeof place.utcOffsetMinutes === 'number' && Number.isInteger(place.utcOffsetMinutes) ? place.utcOffsetMinutes : null,
  };
}

/**
 * A place onto the lead record; null for a place that is no match: without a name, or not in `country`
 * (regionCode only biases Google's answer, so places across a border come back; one whose country Google
 * does not give cannot be shown to be in it and is not delivered either). A closed place is mapped: the
 * request's filters (`passesGoogleMapsFilters`) decide, and count it. A service-area business has
 * `address: null` and the locality it serves, when Google gives one. `retrievedAt`: when Google answered.
 */
export function placeToLead(place: Place, requestedCategory: string, country: string, retrievedAt: string): ProviderLead | null {
  const name = str(place.displayName?.text);
  if (name === null) return null;
  if (countryOf(place) !== country.toUpperCase()) return null;
  const serviceArea = isServiceAreaBusiness(place);
  const rating = typeof place.rating === 'number' && Number.isFinite(place.rating) ? place.rating : null;
  const details = placeDetails(place);
  const lead: GoogleMapsLead = {
    source: 'google_maps',
    businessName: name,
    email: null,
    phone: str(place.internationalPhoneNumber) ?? str(place.nationalPhoneNumber),
    address: serviceArea ? null : str(place.formattedAddress),
    website: str(place.websiteUri),
    reviewScore: rating,
    categories: categoriesOf(requestedCategory, place.types),
    socialProfiles: { facebook: null, instagram: null, linkedin: null },
    ...(serviceArea ? { serviceArea: component(place, 'locality')?.longText ?? null } : {}),
    place: details,
    retrievedAt,
    provenance: { email: null, phone: null, website: null, socialProfiles: { facebook: null, instagram: null, linkedin: null } },
  };
  lead.provenance = upstreamProvenance(lead, fromUpstream(GOOGLE_PLACES, retrievedAt, details.googleMapsUri));
  return { dedupKey: details.placeId, lead };
}

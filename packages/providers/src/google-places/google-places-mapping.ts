import type { GoogleMapsLead } from '@leadgen/domain';
import type { ProviderLead } from '../lead-provider';
import type { Place } from './places-api';

const CLOSED = new Set(['CLOSED_PERMANENTLY', 'CLOSED_TEMPORARILY']);

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

/**
 * A place onto the lead record; null for a place we cannot deliver: closed, without a name, or
 * not in `country` (regionCode only biases Google's answer, so places across a border come back;
 * one whose country Google does not give cannot be shown to be in it and is not delivered either).
 * A service-area business has `address: null` and the locality it serves, when Google gives one.
 */
export function placeToLead(place: Place, requestedCategory: string, country: string): ProviderLead | null {
  if (isClosed(place)) return null;
  const name = str(place.displayName?.text);
  if (name === null) return null;
  if (countryOf(place) !== country.toUpperCase()) return null;
  const serviceArea = isServiceAreaBusiness(place);
  const rating = typeof place.rating === 'number' && Number.isFinite(place.rating) ? place.rating : null;
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
  };
  return { dedupKey: place.id.replace(/^places\//, ''), lead };
}

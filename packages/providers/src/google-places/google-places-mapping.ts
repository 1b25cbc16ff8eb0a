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

/** A place onto the lead record; null for a place we cannot deliver (closed, or without a name). */
export function placeToLead(place: Place, requestedCategory: string): ProviderLead | null {
  if (isClosed(place)) return null;
  const name = str(place.displayName?.text);
  if (name === null) return null;
  const rating = typeof place.rating === 'number' && Number.isFinite(place.rating) ? place.rating : null;
  const lead: GoogleMapsLead = {
    source: 'google_maps',
    businessName: name,
    email: null,
    phone: str(place.internationalPhoneNumber) ?? str(place.nationalPhoneNumber),
    address: str(place.formattedAddress) ?? '',
    website: str(place.websiteUri),
    reviewScore: rating,
    categories: categoriesOf(requestedCategory, place.types),
    socialProfiles: { facebook: null, instagram: null, linkedin: null },
  };
  return { dedupKey: place.id.replace(/^places\//, ''), lead };
}

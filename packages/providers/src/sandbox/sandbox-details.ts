import {
  fromUpstream,
  type GoogleMapsLead,
  type Lead,
  type LinkedinLead,
  type OpeningPeriod,
  PRICE_LEVELS,
  type ShopifyLead,
  upstreamProvenance,
} from '@leadgen/domain';
import type { ProviderLead } from '../lead-provider';
import { PLACE_SPAN_DEGREES, sandboxCityCentre } from './sandbox-geo';
import { localeFor } from './sandbox-places';
import { SeededRandom } from './seeded-random';

// Decision 038's fields for sandbox leads. Drawn from a stream of their own, seeded by the lead's key, so the
// records the sandbox made before (names, emails, phones: the main stream) stay exactly what they were, and
// the same lead always gets the same details: consumers can build against them.

const SANDBOX = 'sandbox';
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const UTC_OFFSET: Record<string, number> = { US: -300, GB: 0, DE: 60, FR: 60, ES: 60, IT: 60, NL: 60, CA: -300, AU: 600, IN: 330 };

function hours(rng: SeededRandom): NonNullable<NonNullable<GoogleMapsLead['place']>['openingHours']> {
  const open = rng.pick([7, 8, 9, 10]);
  const close = rng.pick([17, 18, 19, 20]);
  const saturday = rng.chance(0.5);
  const periods: OpeningPeriod[] = [];
  const weekdayDescriptions: string[] = [];
  // Google lists Monday first in weekdayDescriptions; day numbers are 0 = Sunday.
  for (const day of [1, 2, 3, 4, 5, 6, 0]) {
    const works = day >= 1 && day <= 5 ? true : day === 6 && saturday;
    if (works) periods.push({ open: { day, hour: open, minute: 0 }, close: { day, hour: close, minute: 0 } });
    weekdayDescriptions.push(`${DAYS[day]}: ${works ? `${open}:00 – ${close}:00` : 'Closed'}`);
  }
  return { weekdayDescriptions, periods };
}

function e164(phone: string | null): string | null {
  if (phone === null || !phone.startsWith('+')) return null;
  const digits = phone.slice(1).replace(/\D/g, '');
  return digits.length >= 8 && digits.length <= 15 ? `+${digits}` : null;
}

/**
 * The parts of an address the sandbox wrote (sandbox-places.ts: "street, [postal] city [postal], country"): the city is
 * the one asked for or one the country's list names, and the postal code is what the city line holds beside it.
 */
function addressParts(
  address: string | null,
  country: string,
  city: string | null,
): { street: string | null; locality: string | null; postalCode: string | null } {
  const parts = address?.split(', ') ?? [];
  const street = parts[0]?.trim() || null;
  const cityLine = parts.length >= 3 ? parts[1]! : '';
  const locality = [city, ...localeFor(country).cities].find((name) => name && cityLine.includes(name)) ?? city;
  const postalCode = (locality ? cityLine.replace(locality, '') : cityLine).trim() || null;
  return { street, locality, postalCode };
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

function googleMapsDetails(lead: GoogleMapsLead, key: string, country: string, city: string | null, rng: SeededRandom): void {
  const cid = BigInt(`0x${SeededRandom.fromText(`cid|${key}`).hex(15)}`).toString();
  const address = addressParts(lead.address, country, city);
  // In the city the address names, inside the viewport a search of that city resolves to (sandbox-geo.ts), off its edges.
  const centre = sandboxCityCentre(country, address.locality);
  lead.place = {
    placeId: key,
    location: {
      lat: round6(centre.latitude + (rng.next() - 0.5) * PLACE_SPAN_DEGREES * 0.98),
      lng: round6(centre.longitude + (rng.next() - 0.5) * PLACE_SPAN_DEGREES * 0.98),
    },
    addressComponents: { ...address, region: null, countryCode: country },
    internationalPhone: e164(lead.phone),
    reviewCount: lead.reviewScore === null ? null : rng.int(1, 900),
    priceLevel: rng.chance(0.7) ? rng.pick(PRICE_LEVELS.slice(1, 4)) : null,
    // every sandbox place is open: `only=N` promises N leads, and a closed place is never delivered by default
    businessStatus: 'OPERATIONAL',
    openingHours: hours(rng),
    googleMapsUri: `https://maps.google.com/?cid=${cid}`,
    primaryType: lead.categories[0]?.toLowerCase().replace(/\s+/g, '_') ?? null,
    types: [...lead.categories.map((c) => c.toLowerCase().replace(/\s+/g, '_')), 'point_of_interest', 'establishment'],
    utcOffsetMinutes: UTC_OFFSET[country] ?? 0,
  };
}

function linkedinDetails(lead: LinkedinLead, rng: SeededRandom): void {
  const person = lead.person;
  const [locality, country] = person.location?.includes(',') ? person.location.split(',').map((s) => s.trim()) : [null, person.location];
  person.workEmail = lead.email;
  person.emailType = lead.email === null ? null : 'professional';
  person.phoneNumbers = lead.phone === null ? [] : [lead.phone];
  person.locationParts = { locality: locality ?? null, region: null, country: country ?? null, postalCode: null };
  person.jobStartDate = `${rng.int(2010, 2025)}-${String(rng.int(1, 12)).padStart(2, '0')}`;
  person.seniorityLevels = person.seniority === null ? [] : [person.seniority];
  person.company = {
    name: lead.businessName,
    website: lead.website,
    size: rng.pick(['1-10', '11-50', '51-200', '201-500', '501-1000']),
    industry: lead.categories[0] ?? null,
    linkedinUrl: `https://www.linkedin.com/company/${lead.businessName.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
    location: person.location,
  };
  person.skills = rng.chance(0.8)
    ? [rng.pick(['sales', 'marketing', 'operations', 'finance']), rng.pick(['leadership', 'negotiation', 'crm'])]
    : [];
}

function shopifyDetails(lead: ShopifyLead, rng: SeededRandom): void {
  const store = lead.store;
  store.merchantName = lead.businessName;
  store.plan = rng.chance(0.15) ? 'Shopify Plus' : rng.pick(['Basic', 'Shopify', 'Advanced']);
  store.city = lead.address?.split(',').at(-2)?.trim() ?? null;
  store.region = null;
  store.categoryPaths = store.categoryPath ? [store.categoryPath] : [];
  store.estimatedMonthlySales = rng.int(1, 5000) * 10_000;
  store.employeeCount = rng.int(1, 250);
  store.productCount = rng.int(5, 3000);
  store.rank = rng.int(1_000, 2_000_000);
  store.technologies = [rng.pick(['Klaviyo', 'Mailchimp', 'Omnisend']), 'Google Analytics'];
  store.apps = [rng.pick(['Judge.me Product Reviews', 'Privy', 'Yotpo', 'ReCharge Subscriptions'])];
  store.createdAt = `${rng.int(2012, 2025)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}T00:00:00Z`;
}

/** Fills the lead's decision-038 fields (its source's details, retrievedAt, provenance) in place. */
export function addSandboxDetails(item: ProviderLead, country: string, city: string | null, retrievedAt: string): void {
  const rng = SeededRandom.fromText(`details|${item.dedupKey}`);
  const lead: Lead = item.lead;
  if (lead.source === 'google_maps') googleMapsDetails(lead, item.dedupKey, country, city, rng);
  else if (lead.source === 'linkedin') linkedinDetails(lead, rng);
  else shopifyDetails(lead, rng);
  lead.retrievedAt = retrievedAt;
  const page =
    lead.source === 'google_maps'
      ? (lead.place?.googleMapsUri ?? null)
      : lead.source === 'linkedin'
        ? lead.person.linkedinUrl
        : lead.website;
  lead.provenance = upstreamProvenance(lead, fromUpstream(SANDBOX, retrievedAt, page));
  if (lead.source === 'shopify')
    for (const contact of lead.contacts) {
      const source = fromUpstream(SANDBOX, retrievedAt, contact.linkedinUrl ?? lead.website);
      contact.provenance = {
        email: contact.email === null ? null : source,
        phone: contact.phone === null ? null : source,
        linkedinUrl: contact.linkedinUrl === null ? null : source,
      };
    }
}

import { SENIORITIES } from '@leadgen/domain';
import type { GoogleMapsLead, LinkedinLead, Seniority, SocialProfiles } from '@leadgen/domain';
import type { ProviderLead } from '../lead-provider';
import type { CategoryProfile } from './sandbox-categories';
import { BRAND_WORDS, FIRST_NAMES, LAST_NAMES, TITLES_BY_SENIORITY, inferSeniority, slugify } from './sandbox-data';
import { cityFor, phoneNumber, streetAddress, type Locale } from './sandbox-places';
import type { SandboxQuery } from './sandbox-query';
import type { SeededRandom } from './seeded-random';

/** What every record of one result set is drawn from. */
export interface RecordContext {
  query: SandboxQuery;
  rng: SeededRandom;
  locale: Locale;
  profile: CategoryProfile;
  /** a host name under .example that no earlier record of this result set uses */
  claimDomain(slug: string): string;
}

/** A candidate record, or null when the upstream's own filters would not have returned it. */
export type RecordBuilder = (context: RecordContext) => ProviderLead | null;

export function businessName(profile: CategoryProfile, city: string | null, rng: SeededRandom): string {
  const noun = rng.pick(profile.nouns);
  const surname = rng.pick(LAST_NAMES);
  const patterns: Array<() => string> = [
    () => `${rng.pick(profile.prefixes)} ${noun}`,
    () => `${surname} ${noun}`,
    () => `${surname} & ${rng.pick(LAST_NAMES)} ${noun}`,
    () => `${rng.pick(BRAND_WORDS)} ${noun}`,
  ];
  if (city) {
    patterns.push(
      () => `${rng.pick(profile.prefixes)} ${noun} ${city}`,
      () => `${city} ${rng.pick(['Family', 'Central', 'Premier', 'Downtown', 'City'])} ${noun}`,
      () => `${city} ${noun}`,
    );
  }
  return rng.pick(patterns)();
}

/** The requested category first, then the keyword it matched on, then 0-2 neighbouring categories. */
export function categoriesFor(query: SandboxQuery, profile: CategoryProfile, rng: SeededRandom): string[] {
  const related = [...profile.related];
  const extra: string[] = [];
  for (let n = rng.int(0, Math.min(2, related.length)); n > 0; n--) {
    extra.push(...related.splice(rng.int(0, related.length - 1), 1));
  }
  const all = [query.category, ...(query.keyword ? [query.keyword] : []), ...extra];
  return [...new Set(all.filter((c) => c.length > 0))];
}

export function socialProfiles(
  slug: string,
  rng: SeededRandom,
  odds: { facebook: number; instagram: number; linkedin: number },
): SocialProfiles {
  // page handles on Facebook and Instagram carry no dashes; LinkedIn company pages do
  const handle = slug.replace(/-/g, '');
  return {
    facebook: rng.chance(odds.facebook) ? `https://www.facebook.com/${handle}` : null,
    instagram: rng.chance(odds.instagram) ? `https://www.instagram.com/${handle}` : null,
    linkedin: rng.chance(odds.linkedin) ? `https://www.linkedin.com/company/${slug}` : null,
  };
}

export function reviewScore(rng: SeededRandom): number {
  return rng.int(30, 50) / 10;
}

export function personName(rng: SeededRandom): { first: string; last: string; fullName: string } {
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  return { first, last, fullName: `${first} ${last}` };
}

export function profileUrl(fullName: string, rng: SeededRandom): string {
  return `https://www.linkedin.com/in/${slugify(fullName)}-${rng.hex(8)}`;
}

export function personalEmail(first: string, last: string, domain: string, rng: SeededRandom): string {
  const f = slugify(first).replace(/-/g, '');
  const l = slugify(last).replace(/-/g, '');
  return rng.chance(0.7) ? `${f}.${l}@${domain}` : `${f}@${domain}`;
}

export const googleMapsRecord: RecordBuilder = ({ query, rng, locale, profile, claimDomain }) => {
  const city = cityFor(locale, query.city, rng);
  const name = businessName(profile, city, rng);
  const domain = claimDomain(slugify(name));
  const placeId = `sandbox_place_${rng.hex(24)}`;
  const lead: GoogleMapsLead = {
    source: 'google_maps',
    businessName: name,
    email: rng.chance(0.8) ? `${rng.pick(['info', 'hello', 'contact', 'office'])}@${domain}` : null,
    phone: rng.chance(0.9) ? phoneNumber(locale, city, rng) : null,
    address: streetAddress(locale, city, rng),
    website: rng.chance(0.85) ? `https://${domain}` : null,
    reviewScore: rng.chance(0.9) ? reviewScore(rng) : null,
    categories: categoriesFor(query, profile, rng),
    socialProfiles: socialProfiles(domain.replace(/\.example$/, ''), rng, { facebook: 0.45, instagram: 0.35, linkedin: 0.15 }),
  };
  return { dedupKey: placeId, lead };
};

function titleAndSeniority(query: SandboxQuery, rng: SeededRandom): { title: string; seniority: Seniority | null } {
  const wanted = query.seniorities.length > 0 ? rng.pick(query.seniorities) : null;
  if (query.titles.length > 0) {
    const title = rng.pick(query.titles);
    return { title, seniority: wanted ?? inferSeniority(title) };
  }
  const seniority = wanted ?? rng.pick(SENIORITIES);
  return { title: rng.pick(TITLES_BY_SENIORITY[seniority]), seniority };
}

// People data carries no review score, and a company's social pages are not the person's: only
// socialProfiles.linkedin is set, to the person's profile.
export const linkedinRecord: RecordBuilder = ({ query, rng, locale, profile }) => {
  const person = personName(rng);
  const linkedinUrl = profileUrl(person.fullName, rng);
  const { title, seniority } = titleAndSeniority(query, rng);
  const industry = query.industries.length > 0 ? rng.pick(query.industries) : profile.industry;
  const officeCity = cityFor(locale, query.city, rng);
  const company = businessName(profile, officeCity, rng);
  // colleagues share their company's domain, so company domains are not claimed
  const domain = `${slugify(company) || 'company'}.example`;
  const lead: LinkedinLead = {
    source: 'linkedin',
    businessName: company,
    email: rng.chance(0.45) ? personalEmail(person.first, person.last, domain, rng) : null,
    phone: rng.chance(0.25) ? phoneNumber(locale, officeCity, rng) : null,
    address: streetAddress(locale, officeCity, rng),
    website: rng.chance(0.85) ? `https://${domain}` : null,
    reviewScore: null,
    categories: [industry],
    socialProfiles: { facebook: null, instagram: null, linkedin: linkedinUrl },
    person: {
      fullName: person.fullName,
      title,
      seniority,
      linkedinUrl,
      location: query.city ? `${query.city}, ${locale.countryName}` : locale.countryName,
    },
  };
  return { dedupKey: linkedinUrl, lead };
};

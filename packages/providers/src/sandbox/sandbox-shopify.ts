import { matchCategoryPaths, type ContactChannel, type ShopifyLead, type StoreContact } from '@leadgen/domain';
import type { CategoryProfile } from './sandbox-categories';
import { BRAND_WORDS, LAST_NAMES, STORE_ROLES, STORE_SUFFIXES, slugify } from './sandbox-data';
import { cityFor, phoneNumber, streetAddress, type Locale } from './sandbox-places';
import { categoriesFor, personName, personalEmail, profileUrl, reviewScore, socialProfiles, type RecordBuilder } from './sandbox-records';
import type { SeededRandom } from './seeded-random';

export function storeName(profile: CategoryProfile, rng: SeededRandom): string {
  const good = rng.pick(profile.goods);
  const patterns: Array<() => string> = [
    () => `${rng.pick(BRAND_WORDS)} ${good} ${rng.pick(STORE_SUFFIXES)}`,
    () => `${rng.pick(BRAND_WORDS)} ${good}`,
    () => `${rng.pick(BRAND_WORDS)} & ${rng.pick(BRAND_WORDS)}`,
    () => `${rng.pick(LAST_NAMES)} ${good} ${rng.pick(STORE_SUFFIXES)}`,
    () => `The ${good} ${rng.pick(STORE_SUFFIXES)}`,
  ];
  return rng.pick(patterns)();
}

/** "CEO" matches "Founder & CEO", and "Head of Marketing" matches a wanted "marketing": substring either way. */
export function titleMatches(title: string | null, wanted: readonly string[]): boolean {
  if (!title) return false;
  const have = title.toLowerCase();
  return wanted.some((w) => {
    const want = w.toLowerCase();
    return have.includes(want) || want.includes(have);
  });
}

function contact(title: string, domain: string, locale: Locale, city: string | null, rng: SeededRandom): StoreContact {
  const person = personName(rng);
  return {
    name: person.fullName,
    title,
    email: rng.chance(0.7) ? personalEmail(person.first, person.last, domain, rng) : null,
    phone: rng.chance(0.35) ? phoneNumber(locale, city, rng) : null,
    linkedinUrl: rng.chance(0.6) ? profileUrl(person.fullName, rng) : null,
  };
}

/**
 * 0-3 people from the store-data upstream. With decisionMakerTitles, most stores also list someone
 * holding one of the wanted titles, as a search for those roles would surface; then only the
 * matching people are kept. A store left with no contacts is still a store row.
 */
function storeContacts(wanted: readonly string[], domain: string, locale: Locale, city: string | null, rng: SeededRandom): StoreContact[] {
  const contacts: StoreContact[] = [];
  for (let n = rng.int(0, 3); n > 0; n--) contacts.push(contact(rng.pick(STORE_ROLES), domain, locale, city, rng));
  if (wanted.length === 0) return contacts;
  if (rng.chance(0.85)) {
    const decisionMaker = contact(rng.pick(wanted), domain, locale, city, rng);
    if (contacts.length === 3) contacts[rng.int(0, 2)] = decisionMaker;
    else contacts.splice(rng.int(0, contacts.length), 0, decisionMaker);
  }
  return contacts.filter((c) => titleMatches(c.title, wanted));
}

export function hasChannels(lead: ShopifyLead, channels: readonly ContactChannel[]): boolean {
  return channels.every((channel) => {
    switch (channel) {
      case 'email':
        return lead.email !== null || lead.contacts.some((c) => c.email !== null);
      case 'phone':
        return lead.phone !== null || lead.contacts.some((c) => c.phone !== null);
      case 'linkedin':
        return lead.socialProfiles.linkedin !== null || lead.contacts.some((c) => c.linkedinUrl !== null);
    }
  });
}

// The Store Leads path a category names, as the real adapter records on each store (its first match): one lookup
// per category, not per store.
const PATHS = new Map<string, string | null>();
function categoryPathOf(category: string): string | null {
  let path = PATHS.get(category);
  if (path === undefined) {
    path = matchCategoryPaths(category)[0] ?? null;
    if (PATHS.size > 1_000) PATHS.clear();
    PATHS.set(category, path);
  }
  return path;
}

// Every draw happens before the requiredChannels filter, so a filtered search returns a subsequence
// of the unfiltered one, as an upstream's server-side filter would.
export const shopifyRecord: RecordBuilder = ({ query, rng, locale, profile, claimDomain }) => {
  const name = storeName(profile, rng);
  const domain = claimDomain(slugify(name));
  const city = cityFor(locale, query.city, rng);
  const lead: ShopifyLead = {
    source: 'shopify',
    businessName: name,
    email: rng.chance(0.8) ? `${rng.pick(['hello', 'support', 'info', 'shop'])}@${domain}` : null,
    phone: rng.chance(0.45) ? phoneNumber(locale, city, rng) : null,
    address: streetAddress(locale, city, rng),
    website: `https://${domain}`,
    // the store's product-review average, where it runs a review app
    reviewScore: rng.chance(0.5) ? reviewScore(rng) : null,
    categories: categoriesFor(query, profile, rng),
    socialProfiles: socialProfiles(domain.replace(/\.example$/, ''), rng, { facebook: 0.6, instagram: 0.8, linkedin: 0.3 }),
    store: { domain, country: locale.code, platform: 'shopify', categoryPath: categoryPathOf(query.category) },
    contacts: storeContacts(query.decisionMakerTitles, domain, locale, city, rng),
  };
  return hasChannels(lead, query.requiredChannels) ? { dedupKey: domain, lead } : null;
};

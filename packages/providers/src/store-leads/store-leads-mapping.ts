import {
  type ContactChannel,
  categorySpellings,
  fromUpstream,
  type ShopifyLead,
  type StoreContact,
  type StoreDetails,
  type ValueSource,
} from '@leadgen/domain';
import { bareDomain } from '../people-data-labs/company-people';
import { normalizeLinkedinUrl } from '../people-data-labs/people-data-labs-mapping';
import type { ProviderLead } from '../lead-provider';
import type { ContactInfo, StoreDomain } from './storeleads-api';

function str(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function url(value: string): string {
  return /^https?:\/\//i.test(value) ? value : `https://${value}`;
}

function social(info: readonly ContactInfo[], type: string): string | null {
  const value = first(info, type);
  return value === null ? null : url(value);
}

function first(info: readonly ContactInfo[], type: string): string | null {
  return info.find((c) => c.type.toLowerCase() === type && str(c.value) !== null)?.value.trim() ?? null;
}

/** "/Apparel/Footwear/" → "Apparel > Footwear" */
export function readableCategory(path: string): string {
  return path
    .split('/')
    .map((s) => s.trim())
    .filter(Boolean)
    .join(' > ');
}

/**
 * Which of the paths a job ran with this store is under, by the store's own `categories` (in any
 * accepted spelling of the path). A job with one path names it; a job with several names the first
 * the store is under, or all of them ("; "-joined) when the record does not say.
 */
export function categoryPathOf(store: StoreDomain, paths: readonly string[]): string {
  if (paths.length === 1) return paths[0]!;
  const have = Array.isArray(store.categories)
    ? (store.categories as unknown[]).filter((c): c is string => typeof c === 'string').map(folded)
    : [];
  const under = paths.find((path) =>
    categorySpellings(path).some((s) => have.some((c) => c === folded(s) || c.startsWith(`${folded(s)}/`))),
  );
  return under ?? paths.join('; ');
}

function folded(path: string): string {
  return path.trim().replace(/\/+$/, '').replace(/[’‘]/g, "'").toLowerCase();
}

/** The provider name on every value Store Leads answered (the job body's `provider`). */
export const STORELEADS = 'storeleads';

/**
 * Where a `contact_info` value came from: Store Leads, and the store's page it names as the value's `source`
 * (a path on the store's domain), else the store's home page.
 */
export function contactSource(domain: string, entry: ContactInfo | undefined, retrievedAt: string): ValueSource {
  const path = str(entry?.source);
  let sourceUrl = `https://${domain}/`;
  if (path !== null) {
    try {
      const url = new URL(path, sourceUrl);
      if (url.hostname === domain || url.hostname.endsWith(`.${domain}`)) sourceUrl = url.href;
    } catch {
      // a source that is no URL leaves the home page
    }
  }
  return fromUpstream(STORELEADS, retrievedAt, sourceUrl);
}

function firstEntry(info: readonly ContactInfo[], type: string): ContactInfo | undefined {
  return info.find((c) => c.type.toLowerCase() === type && str(c.value) !== null);
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** Names from a list of names or of objects with a `name` (Store Leads' apps; technologies in either form). */
function names(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out = (value as unknown[])
    .map((v) => (typeof v === 'string' ? str(v) : v && typeof v === 'object' ? str((v as Record<string, unknown>).name) : null))
    .filter((v): v is string => v !== null);
  return [...new Set(out)];
}

/** Store Leads' documented domain fields (decision 038). */
export function storeDetails(store: StoreDomain): Omit<StoreDetails, 'domain' | 'country' | 'platform' | 'categoryPath'> {
  return {
    merchantName: str(store.merchant_name),
    plan: str(store.plan),
    city: str(store.city),
    region: str(store.state),
    categoryPaths: Array.isArray(store.categories)
      ? [
          ...new Set(
            (store.categories as unknown[])
              .map(str)
              .filter((c): c is string => c !== null)
              .map((c) => c.replace(/\/+$/, '')),
          ),
        ]
      : [],
    estimatedMonthlySales: num(store.estimated_sales),
    employeeCount: num(store.employee_count),
    productCount: num(store.product_count),
    rank: num(store.rank),
    technologies: names(store.technologies),
    apps: names(store.apps),
    createdAt: str(store.created_at),
  };
}

/**
 * The store's own contact points (info@, the shop's phone) as contacts without a name or title.
 * They are no decision makers, but where no people lookup is configured they are all there is.
 */
export function contactInfoContacts(info: readonly ContactInfo[], domain = '', retrievedAt = new Date().toISOString()): StoreContact[] {
  const contacts: StoreContact[] = [];
  const seen = new Set<string>();
  for (const entry of info) {
    const type = entry.type.toLowerCase();
    const value = str(entry.value);
    if (value === null || (type !== 'email' && type !== 'phone') || seen.has(`${type}:${value.toLowerCase()}`)) continue;
    seen.add(`${type}:${value.toLowerCase()}`);
    const source = contactSource(domain, entry, retrievedAt);
    contacts.push({
      name: null,
      title: null,
      email: type === 'email' ? value : null,
      phone: type === 'phone' ? value : null,
      linkedinUrl: null,
      provenance: { email: type === 'email' ? source : null, phone: type === 'phone' ? source : null, linkedinUrl: null },
    });
  }
  return contacts;
}

/** A store onto the shopify lead record: one row per store domain, which is its dedup key. */
export function storeToLead(
  store: StoreDomain,
  requestedCategory: string,
  categoryPath: string | null = null,
  retrievedAt: string = new Date().toISOString(),
): ProviderLead & { lead: ShopifyLead } {
  const domain = bareDomain(store.name);
  const info = store.contact_info;
  const categories = Array.isArray(store.categories)
    ? [...new Set((store.categories as unknown[]).map((c) => (typeof c === 'string' ? readableCategory(c) : '')).filter(Boolean))]
    : [];
  const address = [store.street_address, store.city, store.state, store.postal_code, store.country_code]
    .map(str)
    .filter(Boolean)
    .join(', ');
  const linkedin = first(info, 'linkedin');
  const lead: ShopifyLead = {
    source: 'shopify',
    businessName: str(store.merchant_name) ?? domain,
    email: first(info, 'email'),
    phone: first(info, 'phone'),
    address,
    website: `https://${domain}`,
    reviewScore: null,
    categories: categories.length > 0 ? categories : [requestedCategory.trim()],
    socialProfiles: {
      facebook: social(info, 'facebook'),
      instagram: social(info, 'instagram'),
      linkedin: linkedin === null ? null : (normalizeLinkedinUrl(linkedin) ?? url(linkedin)),
    },
    store: { domain, country: str(store.country_code)?.toUpperCase() ?? null, platform: 'shopify', categoryPath, ...storeDetails(store) },
    contacts: contactInfoContacts(info, domain, retrievedAt),
    retrievedAt,
  };
  // Each value's page, as Store Leads names it in contact_info; the website is the store itself.
  const of = (value: unknown, type: string) => (value === null ? null : contactSource(domain, firstEntry(info, type), retrievedAt));
  lead.provenance = {
    email: of(lead.email, 'email'),
    phone: of(lead.phone, 'phone'),
    website: fromUpstream(STORELEADS, retrievedAt, `https://${domain}/`),
    socialProfiles: {
      facebook: of(lead.socialProfiles.facebook, 'facebook'),
      instagram: of(lead.socialProfiles.instagram, 'instagram'),
      linkedin: of(lead.socialProfiles.linkedin, 'linkedin'),
    },
  };
  return { dedupKey: domain, lead };
}

/** Whether the store is in the requested city (Store Leads has no documented city filter, so the adapter narrows). */
export function inCity(store: StoreDomain, city: string | undefined): boolean {
  if (city === undefined || city.trim() === '') return true;
  const have = str(store.city);
  return have !== null && fold(have) === fold(city);
}

function fold(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Whether every required channel is present on the store or one of its contacts. */
export function hasChannels(lead: ShopifyLead, channels: readonly ContactChannel[]): boolean {
  return channels.every((channel) => {
    if (channel === 'email') return lead.email !== null || lead.contacts.some((c) => c.email !== null);
    if (channel === 'phone') return lead.phone !== null || lead.contacts.some((c) => c.phone !== null);
    return lead.socialProfiles.linkedin !== null || lead.contacts.some((c) => c.linkedinUrl !== null);
  });
}

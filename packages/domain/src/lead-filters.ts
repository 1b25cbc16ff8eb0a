import type { GoogleMapsLead, LinkedinLead, PriceLevel, ShopifyLead } from './lead';

// The request's `filters` (decision 038): what a buyer does not want delivered. A lead that fails one is
// neither delivered nor billed; the job pages on to fill maxResults and counts it in `skipped.filtered`.
// Where the upstream filters server-side the adapter sends the filter too (it pays for fewer rows), and
// every filter is checked again here, on the lead, so the promise holds whatever the upstream did.

export interface GoogleMapsFilters {
  /** 0..5: Google's `rating` at least this (sent to Google rounded down to its 0.5 steps) */
  minRating?: number;
  /** Google's `userRatingCount` at least this */
  minReviewCount?: number;
  /** Google's `priceLevel` one of these (a place without one fails) */
  priceLevels?: PriceLevel[];
  requireWebsite?: true;
  requirePhone?: true;
  /** an email from the upstream or the website */
  requireEmail?: true;
  /** deliver temporarily closed places too; a permanently closed place is never delivered */
  includeClosed?: true;
}

export interface LinkedinFilters {
  requireEmail?: true;
  requirePhone?: true;
}

export interface ShopifyFilters {
  /** Store Leads' `estimated_sales` (US cents a month) at least this */
  minEstimatedSales?: number;
  maxEstimatedSales?: number;
  /** any of these technologies (Store Leads' `technologies[].name`, case-insensitive) */
  technologies?: string[];
  /** any of these apps (Store Leads' `apps[].name`, case-insensitive) */
  apps?: string[];
  /** created on or after this date (YYYY-MM-DD) */
  createdAfter?: string;
  minProductCount?: number;
}

export type LeadFilters = GoogleMapsFilters | LinkedinFilters | ShopifyFilters;

/** The filter fields each source accepts, in the order the docs list them. */
export const FILTER_FIELDS = {
  google_maps: ['minRating', 'minReviewCount', 'priceLevels', 'requireWebsite', 'requirePhone', 'requireEmail', 'includeClosed'],
  linkedin: ['requireEmail', 'requirePhone'],
  shopify: ['minEstimatedSales', 'maxEstimatedSales', 'technologies', 'apps', 'createdAfter', 'minProductCount'],
} as const;

/**
 * The google_maps filters that read a field of Google's Enterprise tier, with the field (the adapter's
 * UPSTREAM.md, "SKU per field": `rating`, `userRatingCount`, `priceLevel`, `websiteUri` and the phone numbers
 * are Enterprise; an email comes from the website, which the Pro mask does not return). Under
 * GOOGLE_PLACES_FIELDS=pro no lead carries that field, so each would filter out every place: the API refuses
 * them instead (400, one pointer each). `includeClosed` reads `businessStatus`, a Pro field.
 */
export const ENTERPRISE_TIER_FILTERS: Readonly<Partial<Record<keyof GoogleMapsFilters, string>>> = {
  minRating: 'rating',
  minReviewCount: 'userRatingCount',
  priceLevels: 'priceLevel',
  requireWebsite: 'websiteUri',
  requirePhone: 'internationalPhoneNumber and nationalPhoneNumber',
  requireEmail: 'websiteUri (an email is read on the website)',
};

/**
 * Whether a google_maps lead passes the filters. A value the lead lacks fails a filter on it (a place
 * without a rating does not have "at least 4"). `requireEmail` is checked after the website visit.
 */
export function passesGoogleMapsFilters(lead: GoogleMapsLead, filters: GoogleMapsFilters | undefined): boolean {
  const f = filters ?? {};
  const place = lead.place;
  const status = place?.businessStatus ?? null;
  if (status === 'CLOSED_PERMANENTLY') return false;
  if (status === 'CLOSED_TEMPORARILY' && f.includeClosed !== true) return false;
  if (f.minRating !== undefined && (lead.reviewScore === null || lead.reviewScore < f.minRating)) return false;
  if (f.minReviewCount !== undefined && (place?.reviewCount ?? null) === null) return false;
  if (f.minReviewCount !== undefined && (place?.reviewCount ?? 0) < f.minReviewCount) return false;
  if (f.priceLevels !== undefined && (place?.priceLevel == null || !f.priceLevels.includes(place.priceLevel))) return false;
  if (f.requireWebsite && lead.website === null) return false;
  if (f.requirePhone && lead.phone === null) return false;
  if (f.requireEmail && lead.email === null) return false;
  return true;
}

export function passesLinkedinFilters(lead: LinkedinLead, filters: LinkedinFilters | undefined): boolean {
  if (filters?.requireEmail && lead.email === null) return false;
  if (filters?.requirePhone && lead.phone === null) return false;
  return true;
}

const lower = (values: readonly string[]) => new Set(values.map((v) => v.trim().toLowerCase()));

export function passesShopifyFilters(lead: ShopifyLead, filters: ShopifyFilters | undefined): boolean {
  const f = filters ?? {};
  const store = lead.store;
  const sales = store.estimatedMonthlySales ?? null;
  if (f.minEstimatedSales !== undefined && (sales === null || sales < f.minEstimatedSales)) return false;
  if (f.maxEstimatedSales !== undefined && (sales === null || sales > f.maxEstimatedSales)) return false;
  if (f.minProductCount !== undefined && (store.productCount == null || store.productCount < f.minProductCount)) return false;
  if (f.technologies !== undefined) {
    const wanted = lower(f.technologies);
    if (!(store.technologies ?? []).some((t) => wanted.has(t.toLowerCase()))) return false;
  }
  if (f.apps !== undefined) {
    const wanted = lower(f.apps);
    if (!(store.apps ?? []).some((a) => wanted.has(a.toLowerCase()))) return false;
  }
  if (f.createdAfter !== undefined) {
    const created = store.createdAt ? Date.parse(store.createdAt) : Number.NaN;
    if (!Number.isFinite(created) || created < Date.parse(`${f.createdAfter}T00:00:00Z`)) return false;
  }
  return true;
}

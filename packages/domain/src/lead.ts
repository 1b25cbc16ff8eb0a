import type { EmailVerification } from './email-verification';
import type { LeadNotice } from './lead-notice';
import type { ContactProvenance, LeadProvenance } from './lead-provenance';

export interface SocialProfiles {
  facebook: string | null;
  instagram: string | null;
  linkedin: string | null;
}

/** Where a lead's email and profiles came from, when its website was visited, so a buyer can judge them. */
export interface LeadEnrichment {
  /** "upstream" (the source's API), the website page it was read from ("contact page", "home page", ...), or null */
  emailSource: string | null;
  /** why a website address is taken as the business's: "site domain", "structured data", "contact block", "mailto near business name", "contact page", "role address", "page text" */
  emailBasis: string | null;
  /** the same as emailSource, per profile */
  profileSources: { facebook: string | null; instagram: string | null; linkedin: string | null };
  /** website pages read for this lead */
  pagesVisited: number;
  /** "ok"; "parked": a registrar's parking or expired-domain page, nothing taken from it; "unreachable": no page read (decision 040). Absent on leads enriched before it */
  websiteStatus?: 'ok' | 'parked' | 'unreachable';
  /** per value the website filled: the exact page it was read on and why it is the business's (decision 040); null where the website filled nothing. Absent on leads enriched before it */
  sources?: {
    email: WebsiteValueSource | null;
    facebook: WebsiteValueSource | null;
    instagram: WebsiteValueSource | null;
    linkedin: WebsiteValueSource | null;
  };
}

/** Where a website value was read, and the evidence it is the business's (decision 040). */
export interface WebsiteValueSource {
  sourceUrl: string;
  /** an address's reason ("site domain", "business name domain", "contact block", ...), a profile's ("linked from the site", "unwrapped redirect link", "Page Plugin") */
  basis: string;
}

/** The record every source returns, so a client can treat all leads alike (docs/api.md#lead-records). */
export interface LeadRecord {
  businessName: string;
  /** never an address whose domain takes no mail, nor a disposable one (docs/api.md, "Email verification") */
  email: string | null;
  /** the verdict on `email` (null when `email` is null); absent only on leads made before verification existed */
  emailVerification?: EmailVerification | null;
  phone: string | null;
  /** the postal address; null when the source has none (a google_maps service-area business) */
  address: string | null;
  website: string | null;
  reviewScore: number | null;
  categories: string[];
  socialProfiles: SocialProfiles;
  /** present on leads whose website was visited to fill gaps (google_maps, shopify) */
  enrichment?: LeadEnrichment;
  /** when the upstream answered with this record (ISO 8601); absent only on leads delivered before decision 038 */
  retrievedAt?: string;
  /** where each contact value came from and when (decision 038); absent only on leads delivered before it */
  provenance?: LeadProvenance;
  /**
   * what the person must be told at the first contact (GDPR art. 14 and 21(4)): the sources of the lead's data, when
   * they were read, and where to object (issue 38); absent only on leads delivered before it
   */
  notice?: LeadNotice;
}

export interface PersonDetails {
  fullName: string;
  title: string | null;
  seniority: string | null;
  linkedinUrl: string;
  location: string | null;
  // Decision 038: PDL's documented person fields a sales team uses. Absent on leads delivered before it.
  /** PDL's `work_email`; null when PDL has none (or the plan withholds it: PDL's `true`) */
  workEmail?: string | null;
  /** what kind of address `email` is: "professional" (work_email or PDL's type), "personal", or null when unknown */
  emailType?: 'professional' | 'personal' | null;
  /** every phone number PDL returned (E.164 as PDL writes them), `phone` first */
  phoneNumbers?: string[];
  /** PDL's location parts */
  locationParts?: { locality: string | null; region: string | null; country: string | null; postalCode: string | null };
  /** PDL's `job_start_date` (YYYY-MM or YYYY-MM-DD, as PDL gives it) */
  jobStartDate?: string | null;
  /** every level of PDL's `job_title_levels` (`seniority` is the first, mapped) */
  seniorityLevels?: string[];
  /** the person's company, as PDL describes it */
  company?: PersonCompany | null;
  /** PDL's `skills`, where returned */
  skills?: string[];
}

export interface PersonCompany {
  name: string | null;
  website: string | null;
  /** PDL's `job_company_size` band ("51-200") */
  size: string | null;
  industry: string | null;
  linkedinUrl: string | null;
  /** PDL's `job_company_location_name` */
  location: string | null;
}

export interface StoreDetails {
  domain: string;
  country: string | null;
  platform: string;
  /** the published Store Leads category path the request's category was mapped to (null only on leads delivered before categories had to match one, decision 024); absent in the sandbox */
  categoryPath?: string | null;
  // Decision 038: Store Leads' documented domain fields. Absent on leads delivered before it.
  merchantName?: string | null;
  /** Store Leads' `plan` (the platform's plan: "Shopify Plus", "Basic", ...) */
  plan?: string | null;
  city?: string | null;
  region?: string | null;
  /** every category path Store Leads lists for the store */
  categoryPaths?: string[];
  /** Store Leads' `estimated_sales`: estimated monthly sales in US cents */
  estimatedMonthlySales?: number | null;
  employeeCount?: number | null;
  productCount?: number | null;
  /** Store Leads' `rank` (1 is the largest store) */
  rank?: number | null;
  technologies?: string[];
  apps?: string[];
  /** when the store was created (`created_at`, ISO 8601 as Store Leads gives it) */
  createdAt?: string | null;
}

export interface StoreContact {
  name: string | null;
  title: string | null;
  email: string | null;
  /** the verdict on `email`, as on the lead */
  emailVerification?: EmailVerification | null;
  phone: string | null;
  linkedinUrl: string | null;
  /** where each of this contact's values came from (decision 038); absent on leads delivered before it */
  provenance?: ContactProvenance;
}

/** Google's `businessStatus` values (Places API (New), place proto). */
export type BusinessStatus = 'OPERATIONAL' | 'CLOSED_TEMPORARILY' | 'CLOSED_PERMANENTLY';
export const BUSINESS_STATUSES: readonly BusinessStatus[] = ['OPERATIONAL', 'CLOSED_TEMPORARILY', 'CLOSED_PERMANENTLY'];

/** Google's `priceLevel` without its `PRICE_LEVEL_` prefix, lower case. */
export type PriceLevel = 'free' | 'inexpensive' | 'moderate' | 'expensive' | 'very_expensive';
export const PRICE_LEVELS: readonly PriceLevel[] = ['free', 'inexpensive', 'moderate', 'expensive', 'very_expensive'];

/** One opening period as Google gives it: day 0 is Sunday, times local to the place. */
export interface OpeningPeriod {
  open: { day: number; hour: number; minute: number };
  /** null: open around the clock from `open` (Google leaves `close` out) */
  close: { day: number; hour: number; minute: number } | null;
}

/** The place's address split as a CRM wants it (from Google's `addressComponents`). */
export interface PlaceAddress {
  /** street number and route as one line ("1600 Amphitheatre Parkway") */
  street: string | null;
  locality: string | null;
  postalCode: string | null;
  /** the first-level administrative area ("CA", "Bayern") */
  region: string | null;
  /** ISO 3166-1 alpha-2 */
  countryCode: string | null;
}

/**
 * Google Maps' own fields (decision 038). Those of Google's Enterprise tier (`internationalPhone`,
 * `reviewCount`, `priceLevel`, `openingHours`) are null on a lead made under GOOGLE_PLACES_FIELDS=pro.
 */
export interface PlaceDetails {
  /** Google's place id: the lead's dedup key */
  placeId: string;
  location: { lat: number; lng: number } | null;
  addressComponents: PlaceAddress | null;
  /** the phone in E.164 ("+16502530000"), from Google's `internationalPhoneNumber` */
  internationalPhone: string | null;
  /** Google's `userRatingCount` */
  reviewCount: number | null;
  priceLevel: PriceLevel | null;
  businessStatus: BusinessStatus | null;
  /** Google's `regularOpeningHours` */
  openingHours: { weekdayDescriptions: string[]; periods: OpeningPeriod[] } | null;
  googleMapsUri: string | null;
  primaryType: string | null;
  /** Google's own types, as Google names them ("dental_clinic"), generic ones included */
  types: string[];
  /** the place's current offset from UTC, in minutes (Google's `utcOffsetMinutes`) */
  utcOffsetMinutes: number | null;
}

export type GoogleMapsLead = LeadRecord & {
  source: 'google_maps';
  /** only on a service-area business (no storefront, `address` null): the locality it serves, null when Google names none */
  serviceArea?: string | null;
  /** absent only on leads delivered before decision 038 */
  place?: PlaceDetails;
};
export type LinkedinLead = LeadRecord & { source: 'linkedin'; person: PersonDetails };
export type ShopifyLead = LeadRecord & { source: 'shopify'; store: StoreDetails; contacts: StoreContact[] };

export type Lead = GoogleMapsLead | LinkedinLead | ShopifyLead;

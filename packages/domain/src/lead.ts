import type { EmailVerification } from './email-verification';

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
}

export interface PersonDetails {
  fullName: string;
  title: string | null;
  seniority: string | null;
  linkedinUrl: string;
  location: string | null;
}

export interface StoreDetails {
  domain: string;
  country: string | null;
  platform: string;
  /** the published Store Leads category path the request's category was mapped to (null only on leads delivered before categories had to match one, decision 024); absent in the sandbox */
  categoryPath?: string | null;
}

export interface StoreContact {
  name: string | null;
  title: string | null;
  email: string | null;
  /** the verdict on `email`, as on the lead */
  emailVerification?: EmailVerification | null;
  phone: string | null;
  linkedinUrl: string | null;
}

export type GoogleMapsLead = LeadRecord & {
  source: 'google_maps';
  /** only on a service-area business (no storefront, `address` null): the locality it serves, null when Google names none */
  serviceArea?: string | null;
};
export type LinkedinLead = LeadRecord & { source: 'linkedin'; person: PersonDetails };
export type ShopifyLead = LeadRecord & { source: 'shopify'; store: StoreDetails; contacts: StoreContact[] };

export type Lead = GoogleMapsLead | LinkedinLead | ShopifyLead;

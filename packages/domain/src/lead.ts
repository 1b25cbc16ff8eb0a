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
}

/** The record every source returns, so a client can treat all leads alike (docs/api.md#lead-records). */
export interface LeadRecord {
  businessName: string;
  email: string | null;
  phone: string | null;
  address: string;
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
  /** the Store Leads category path the request's category was mapped to (null: none matched, searched as text); absent in the sandbox */
  categoryPath?: string | null;
}

export interface StoreContact {
  name: string | null;
  title: string | null;
  email: string | null;
  phone: string | null;
  linkedinUrl: string | null;
}

export type GoogleMapsLead = LeadRecord & { source: 'google_maps' };
export type LinkedinLead = LeadRecord & { source: 'linkedin'; person: PersonDetails };
export type ShopifyLead = LeadRecord & { source: 'shopify'; store: StoreDetails; contacts: StoreContact[] };

export type Lead = GoogleMapsLead | LinkedinLead | ShopifyLead;

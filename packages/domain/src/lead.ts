export interface SocialProfiles {
  facebook: string | null;
  instagram: string | null;
  linkedin: string | null;
}

/** The record of the seed's 2.3: every source returns it, so a client can treat all leads alike. */
export interface LeadRecord {
  businessName: string;
  email: string | null;
  phone: string | null;
  address: string;
  website: string | null;
  reviewScore: number | null;
  categories: string[];
  socialProfiles: SocialProfiles;
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

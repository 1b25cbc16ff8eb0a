import type { LeadFilters } from './lead-filters';
import type { Tile } from './area-tiles';
import type { Source } from './sources';

export const MAX_RESULTS_DEFAULT = 25;
export const MAX_RESULTS_LIMIT = 100;

export const SENIORITIES = [
  'owner',
  'founder',
  'c_suite',
  'partner',
  'vp',
  'head',
  'director',
  'manager',
  'senior',
  'entry',
  'intern',
] as const;
export type Seniority = (typeof SENIORITIES)[number];

export const COMPANY_SIZES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000', '10001+'] as const;
export type CompanySize = (typeof COMPANY_SIZES)[number];

export const CONTACT_CHANNELS = ['email', 'phone', 'linkedin'] as const;
export type ContactChannel = (typeof CONTACT_CHANNELS)[number];

/** linkedinParams after validation: title and industry always arrays, country an ISO code. */
export interface LinkedinParams {
  title?: string[];
  seniority?: Seniority[];
  industry?: string[];
  companySize?: CompanySize[];
  country?: string;
}

/** A generation request after validation and normalisation: what a job stores and a worker reads. */
export interface GenerationRequest {
  source: Source;
  category: string;
  /** ISO 3166-1 alpha-2, upper case */
  state: string;
  city?: string;
  keyword?: string;
  maxResults: number;
  linkedinParams?: LinkedinParams;
  decisionMakerTitles?: string[];
  requiredChannels?: ContactChannel[];
  /** skip (neither deliver nor bill) leads this account received in any earlier job; absent means false */
  excludeDelivered?: true;
  /** what not to deliver (nor bill), per source (decision 038); absent: no filter beyond the defaults */
  filters?: LeadFilters;
  /** where this job's terminal event is also delivered, signed with the account's default webhook secret (decision 016) */
  webhookUrl?: string;
  /** an area search's child (decision 039): the one rectangle it searches, restricted to its batch's area */
  tile?: Tile;
}

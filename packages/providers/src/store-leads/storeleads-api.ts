import { ProviderError } from '../lead-provider';
import type { UpstreamClient } from '../upstream';

/** Store Leads' own maximum page size. */
export const MAX_PAGE_SIZE = 50;

/** Only what we map; the API documents many more fields (see UPSTREAM.md). */
const FIELDS = [
  'name',
  'merchant_name',
  'country_code',
  'city',
  'state',
  'street_address',
  'postal_code',
  'categories',
  'contact_info',
  'platform',
  // decision 038: the domain fields buyers filter on (UPSTREAM.md names each one's source)
  'plan',
  'estimated_sales',
  'employee_count',
  'product_count',
  'rank',
  'technologies',
  'apps',
  'created_at',
].join(',');

export interface ContactInfo {
  type: string;
  value: string;
  /** the store's page the value was read on, relative to the domain ("/pages/contact") */
  source?: string;
}

export interface StoreDomain {
  name: string;
  /** the business's name; `title` is the home page's <title> ("Dune Apparel | Free shipping over $75") */
  merchant_name?: unknown;
  country_code?: unknown;
  city?: unknown;
  state?: unknown;
  street_address?: unknown;
  postal_code?: unknown;
  categories?: unknown;
  contact_info: ContactInfo[];
  plan?: unknown;
  /** estimated monthly sales, US cents */
  estimated_sales?: unknown;
  employee_count?: unknown;
  product_count?: unknown;
  rank?: unknown;
  /** names, or objects with a `name` */
  technologies?: unknown;
  /** objects with a `name` (and `platform`, `token`) */
  apps?: unknown;
  created_at?: unknown;
}

export interface DomainQuery {
  /** ISO country code */
  country: string;
  /** `f:cat` for the Store Leads paths the category maps to (@leadgen/domain's categoryFilter), never a guess */
  category: { value: string; anyOf: boolean };
  /** free text for `q`: the keyword */
  text?: string;
  page: number;
  pageSize: number;
}

function malformed(what: string): ProviderError {
  return new ProviderError('provider_error', `storeleads: unexpected answer (${what})`);
}

export function parseDomains(body: unknown): StoreDomain[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw malformed('not an object');
  const raw = (body as Record<string, unknown>).domains ?? [];
  if (!Array.isArray(raw)) throw malformed('domains is not a list');
  const domains: StoreDomain[] = [];
  for (const item of raw as unknown[]) {
    if (item === null || typeof item !== 'object') throw malformed('a domain that is not an object');
    const record = item as Record<string, unknown>;
    if (typeof record.name !== 'string' || record.name.trim() === '') throw malformed('a domain without a name');
    const contacts = Array.isArray(record.contact_info) ? (record.contact_info as unknown[]) : [];
    const contact_info = contacts.filter(
      (c): c is ContactInfo =>
        c !== null && typeof c === 'object' && typeof (c as ContactInfo).type === 'string' && typeof (c as ContactInfo).value === 'string',
    );
    domains.push({ ...record, name: record.name, contact_info });
  }
  return domains;
}

/** `f:ds`: only stores whose domain is live, as other Store Leads clients ask by default (UPSTREAM.md). */
export const ACTIVE_DOMAIN_STATE = 'Active';

/** One page (0-based) of active Shopify stores in a country and category. */
export async function listDomains(
  client: UpstreamClient,
  query: DomainQuery,
  signal: AbortSignal,
  deadline: number,
): Promise<StoreDomain[]> {
  const response = await client.request({
    method: 'GET',
    path: 'json/api/v1/all/domain',
    query: {
      'f:p': 'shopify',
      'f:cc': query.country,
      'f:cat': query.category.value,
      // Several values are all required unless the operator says any one will do (UPSTREAM.md).
      'f:cat:op': query.category.anyOf ? 'or' : undefined,
      'f:ds': ACTIVE_DOMAIN_STATE,
      q: query.text,
      page: query.page,
      page_size: query.pageSize,
      fields: FIELDS,
    },
    signal,
    deadline,
  });
  return parseDomains(response.body);
}

import { FakeServer, type FakeResponse, type RecordedRequest } from './fake-server';

/**
 * A fake of Store Leads' domain list (`GET /json/api/v1/all/domain`):
 * - `Authorization: Bearer <key>` (wrong or missing: 401);
 * - filters `f:p` (platform), `f:cc` (country code), `f:ds` (domain state: `Active` leaves out the
 *   stores that are no longer live; without it they come back too), `f:cat` (category paths,
 *   several comma-separated, combined by `f:cat:op`: `and` (the default) every value, `or` any one,
 *   `nand` not all, `nor` none, as Store Leads' API collection documents the filters' values and
 *   operators; one value is the stores in that path or below it, and a path no store carries matches
 *   nothing: UPSTREAM.md says what is and is not known of an unknown path), `q` (text in name,
 *   merchant_name, title); unknown filter keys are silently ignored (see src/store-leads/UPSTREAM.md);
 * - `merchant_name` is the business, `title` the home page's <title>; address in `street_address`,
 *   `city`, `state`, `postal_code`, `country_code`;
 * - `page` (0-based) and `page_size` (at most 50, else 400); `fields` limits the keys returned;
 * - `{ domains: [...] }` with `contact_info: [{ type, value }]` entries (email, phone, facebook,
 *   instagram, linkedin, ...); 429 with Retry-After when throttled; errors as `{ error }`.
 */
export interface FakeStore {
  name: string;
  platform: string;
  merchant_name?: string;
  /** the home page's <title>, not a business name */
  title?: string;
  country_code?: string;
  street_address?: string;
  city?: string;
  state?: string;
  postal_code?: string;
  categories?: string[];
  /** `source`: the store's page the value was read on, relative to the domain ("/pages/contact"), as other clients read it */
  contact_info?: Array<{ type: string; value: string; source?: string }>;
  // Decision 038: domain fields as other clients of the API read them (src/store-leads/UPSTREAM.md):
  /** estimated monthly sales in US cents */
  estimated_sales?: number;
  /** the platform's plan ("Shopify Plus", "Basic") */
  plan?: string;
  employee_count?: number;
  product_count?: number;
  /** 1 is the largest store */
  rank?: number;
  /** technologies detected on the store: objects with a `name` */
  technologies?: Array<{ name: string }>;
  /** installed apps: `{ platform, name, token }` */
  apps?: Array<{ platform: string; name: string; token: string }>;
  /** when Store Leads first saw the store (ISO 8601) */
  created_at?: string;
  /** what `f:ds` filters on: `Active`, or `Inactive` for a store no longer live */
  domain_state?: string;
}

export function storeLeadsError(_status: number, message = 'fake upstream error'): unknown {
  return { error: message };
}

export function makeStores(count: number, overrides: (i: number) => Partial<FakeStore> = () => ({})): FakeStore[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `store${i}.com`,
    platform: 'shopify',
    merchant_name: `Store ${i}`,
    title: `Store ${i} | Free shipping over $75`,
    country_code: 'US',
    city: 'Austin',
    state: 'TX',
    categories: ['/Apparel/Footwear/'],
    contact_info: [],
    estimated_sales: 1000 * i,
    plan: i % 5 === 0 ? 'Shopify Plus' : 'Basic',
    employee_count: 2 + i,
    product_count: 10 * i,
    rank: 100000 - i,
    technologies: [{ name: i % 2 === 0 ? 'Klaviyo' : 'Mailchimp' }, { name: 'Google Analytics' }],
    apps: [{ platform: 'shopify', name: i % 3 === 0 ? 'Judge.me Product Reviews' : 'Privy', token: `app-${i % 3}` }],
    created_at: `20${String(15 + (i % 10))}-0${1 + (i % 9)}-15T00:00:00Z`,
    domain_state: 'Active',
    ...overrides(i),
  }));
}

function inPath(storeCategory: string, filter: string): boolean {
  const have = storeCategory.toLowerCase().replace(/\/+$/, '');
  return have === filter || have.startsWith(`${filter}/`);
}

/** `f:cat` with `f:cat:op` over one store's categories; an unknown operator is refused like a bad page. */
function categoryFilter(values: string[], op: string, categories: string[]): boolean {
  const hits = values.map((value) => categories.some((c) => inPath(c, value)));
  if (op === 'and') return hits.every(Boolean);
  if (op === 'or') return hits.some(Boolean);
  if (op === 'nand') return !hits.every(Boolean);
  return !hits.some(Boolean);
}

const CATEGORY_OPERATORS = ['and', 'or', 'nand', 'nor'];

export class StoreLeadsFake extends FakeServer {
  stores: FakeStore[] = [];

  constructor(readonly apiKey = 'storeleads-test-key') {
    super(
      (request) => this.answer(request),
      (status) => storeLeadsError(status),
    );
  }

  private answer(request: RecordedRequest): FakeResponse {
    if (request.method !== 'GET' || request.path !== '/json/api/v1/all/domain')
      return { status: 404, body: storeLeadsError(404, 'Not found') };
    if (request.headers.authorization !== `Bearer ${this.apiKey}`) return { status: 401, body: storeLeadsError(401, 'Invalid API key') };
    const q = request.query;
    const page = Number(q.get('page') ?? '0');
    const pageSize = Number(q.get('page_size') ?? '50');
    if (!Number.isInteger(page) || page < 0) return { status: 400, body: storeLeadsError(400, 'invalid page') };
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 50)
      return { status: 400, body: storeLeadsError(400, 'page_size must be between 1 and 50') };
    const platform = q.get('f:p');
    const country = q.get('f:cc')?.toUpperCase();
    const categories = q
      .get('f:cat')
      ?.split(',')
      .map((c) => c.trim().toLowerCase().replace(/\/+$/, ''))
      .filter(Boolean);
    const categoryOp = (q.get('f:cat:op') ?? 'and').toLowerCase();
    if (!CATEGORY_OPERATORS.includes(categoryOp)) return { status: 400, body: storeLeadsError(400, 'invalid f:cat:op') };
    const domainState = q.get('f:ds')?.toLowerCase();
    const text = q.get('q')?.toLowerCase();
    const found = this.stores.filter(
      (s) =>
        (!platform || s.platform === platform) &&
        (!country || s.country_code === country) &&
        (!domainState || (s.domain_state ?? 'Active').toLowerCase() === domainState) &&
        (!categories || categories.length === 0 || categoryFilter(categories, categoryOp, s.categories ?? [])) &&
        (!text || `${s.name} ${s.merchant_name ?? ''} ${s.title ?? ''}`.toLowerCase().includes(text)),
    );
    const fields = q
      .get('fields')
      ?.split(',')
      .map((f) => f.trim());
    const domains = found
      .slice(page * pageSize, (page + 1) * pageSize)
      .map((store) => (fields ? Object.fromEntries(Object.entries(store).filter(([key]) => fields.includes(key))) : store));
    return { status: 200, body: { domains } };
  }
}

export async function startStoreLeadsFake(apiKey?: string): Promise<StoreLeadsFake> {
  return new StoreLeadsFake(apiKey).start();
}

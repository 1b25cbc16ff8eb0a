import {
  type ContactChannel,
  type GenerationRequest,
  categoryFilter,
  matchCategoryPaths,
  nearestCategoryPaths,
  passesShopifyFilters,
  type ShopifyFilters,
  type ShopifyLead,
  type StoreContact,
} from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { type LeadProvider, ProviderError, type ProviderLead, type ProviderPage, type SearchContext } from '../lead-provider';
import { enrichOneLead, type EnrichmentStep } from '../enrichment';
import type { UpstreamClient } from '../upstream';
import type { CompanyPeopleFinder } from '../people-data-labs/company-people';
import { categoryPathOf, hasChannels, inCity, storeToLead } from './store-leads-mapping';
import { listDomains, MAX_PAGE_SIZE } from './storeleads-api';

export interface StoreLeadsProviderOptions {
  /** an UpstreamClient for STORELEADS_BASE_URL carrying `Authorization: Bearer` */
  client: UpstreamClient;
  /** decision makers by company domain (PDL); null when PDL is not configured */
  people: CompanyPeopleFinder | null;
  enrichment: EnrichmentStep | null;
}

/**
 * Cursor (JSON): `{ v: 1, page, offset, pageSize }`: the Store Leads page (0-based) and the index
 * within it to continue from. The page size is kept so a resumed job pages the same way.
 */
interface CursorState {
  page: number;
  offset: number;
  pageSize: number;
}

export function encodeCursor(state: CursorState): string {
  return JSON.stringify({ v: 1, ...state });
}

function decodeCursor(cursor: string | null): CursorState | null {
  if (cursor === null) return null;
  try {
    const raw = JSON.parse(cursor) as Record<string, unknown>;
    const ints = [raw.page, raw.offset, raw.pageSize].every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0);
    if (raw.v !== 1 || !ints || (raw.pageSize as number) < 1) return null;
    return { page: raw.page as number, offset: raw.offset as number, pageSize: Math.min(MAX_PAGE_SIZE, raw.pageSize as number) };
  } catch {
    return null;
  }
}

/**
 * With requiredChannels or a city (narrowed here) many stores are dropped, so full pages are worth it; otherwise the job
 * needs at most maxResults stores and a smaller page saves quota.
 */
function pageSizeFor(request: GenerationRequest): number {
  if (request.requiredChannels && request.requiredChannels.length > 0) return MAX_PAGE_SIZE;
  if (request.filters && Object.keys(request.filters).length > 0) return MAX_PAGE_SIZE;
  if (request.city && request.city.trim() !== '') return MAX_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(10, request.maxResults));
}

export function createStoreLeadsProvider(options: StoreLeadsProviderOptions): LeadProvider<'shopify'> {
  return {
    source: 'shopify',
    name: 'storeleads',
    search: (request, context) => search(options, request, context),
  };
}

/**
 * The people lookup adds to a store row; it is not what the row is billed for. So an upstream
 * failure there costs the contacts, not the job. Refused PDL credentials still end the job: they
 * are an operator's mistake that would otherwise go unnoticed.
 */
async function findPeople(
  options: StoreLeadsProviderOptions,
  leads: readonly ShopifyLead[],
  titles: readonly string[],
  channels: readonly ContactChannel[],
  context: SearchContext,
): Promise<Map<string, StoreContact[]>> {
  if (options.people === null || titles.length === 0 || leads.length === 0) return new Map();
  try {
    return await options.people.find(
      leads.map((l) => l.store.domain),
      titles,
      context.signal,
      context.deadline,
      channels,
    );
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    if (error instanceof ProviderError && error.reason === 'provider_unauthorized') throw error;
    logger.warn('storeleads: people lookup failed, stores keep their own contact points only', { error });
    return new Map();
  }
}

async function* search(
  options: StoreLeadsProviderOptions,
  request: GenerationRequest,
  context: SearchContext,
): AsyncGenerator<ProviderPage> {
  const channels = request.requiredChannels ?? [];
  const titles = request.decisionMakerTitles ?? [];
  let state = decodeCursor(context.cursor) ?? { page: 0, offset: 0, pageSize: pageSizeFor(request) };
  const seen = new Set<string>();
  // Only a published path is ever sent: a guessed one filters nothing or everything (UPSTREAM.md).
  // The API refuses such a category before a job exists; a job that got here anyway fails, unfiltered never.
  const categoryPaths = matchCategoryPaths(request.category);
  if (categoryPaths.length === 0) {
    throw new ProviderError(
      'provider_error',
      `storeleads: "${request.category.trim()}" names no Store Leads category (nearest: ${nearestCategoryPaths(request.category).join(', ')})`,
    );
  }
  const category = categoryFilter(categoryPaths);
  const text = request.keyword?.trim() || undefined;
  // No source we could read documents Store Leads' filter names for sales, products, technologies, apps or
  // creation date (UPSTREAM.md): every shopify filter is applied here, on the record.
  const filters = request.filters as ShopifyFilters | undefined;
  for (;;) {
    const domains = await listDomains(
      options.client,
      { country: request.state, category, text, page: state.page, pageSize: state.pageSize },
      context.signal,
      context.deadline,
    );
    const lastPage = domains.length < state.pageSize;
    const retrievedAt = new Date().toISOString();
    // Indexes of the stores the request's filters left out (decision 038): before the people lookup and the
    // website visit, so a filtered store costs no PDL call and no crawl.
    const filteredAt = new Set<number>();
    // Index in the page → row, for the stores not yet handed over in this run.
    const rows = new Map<number, ProviderLead & { lead: ShopifyLead }>();
    domains.forEach((domain, index) => {
      if (index < state.offset || !inCity(domain, request.city)) return;
      const row = storeToLead(domain, request.category, categoryPathOf(domain, categoryPaths), retrievedAt);
      if (row.dedupKey === '' || seen.has(row.dedupKey)) return;
      seen.add(row.dedupKey);
      if (passesShopifyFilters(row.lead, filters)) rows.set(index, row);
      else filteredAt.add(index);
    });
    const people = await findPeople(
      options,
      [...rows.values()].map((r) => r.lead),
      titles,
      channels,
      context,
    );
    for (const row of rows.values()) row.lead.contacts.push(...(people.get(row.dedupKey) ?? []));

    // The page is handed over as soon as its people are known: the worker reads the websites of the stores it
    // still needs, as many at once as it needs, and drops those without the required channels (decision 037);
    // requiredChannels is a filter too, so the worker counts those drops as filtered with the page's own
    // (decision 038).
    const step = options.enrichment;
    const finish = async (row: ProviderLead, leadSignal: AbortSignal): Promise<boolean> => {
      const lead = row.lead as ShopifyLead;
      if (step) await enrichOneLead(lead, step, leadSignal, context.deadline);
      return hasChannels(lead, channels);
    };
    const leads = [...rows.entries()].sort(([a], [b]) => a - b).map(([, row]) => row);
    const next: CursorState | null = lastPage ? null : { ...state, page: state.page + 1, offset: 0 };
    const filtered = filteredAt.size;
    yield { leads, cursor: next === null ? null : encodeCursor(next), finish, ...(filtered > 0 ? { filtered } : {}) };
    if (lastPage) return;
    state = { ...state, page: state.page + 1, offset: 0 };
  }
}

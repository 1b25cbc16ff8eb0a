import { type GenerationRequest, type LinkedinFilters, type LinkedinLead, passesLinkedinFilters } from '@leadgen/domain';
import type { LeadProvider, ProviderLead, ProviderPage, SearchContext } from '../lead-provider';
import { type UpstreamClient, UpstreamError } from '../upstream';
import { personToLead } from './people-data-labs-mapping';
import { MAX_SIZE, personSearch } from './pdl-api';
import { buildPersonQuery, personDataset } from './query';

export interface PeopleDataLabsProviderOptions {
  /** an UpstreamClient for PDL_BASE_URL carrying X-Api-Key */
  client: UpstreamClient;
}

/** Cursor (JSON): `{ v: 1, scrollToken }`, the token that fetches the page after the committed one. */
export function encodeCursor(scrollToken: string): string {
  return JSON.stringify({ v: 1, scrollToken });
}

export function decodeCursor(cursor: string | null): string | null {
  if (cursor === null) return null;
  try {
    const raw = JSON.parse(cursor) as Record<string, unknown>;
    return raw.v === 1 && typeof raw.scrollToken === 'string' ? raw.scrollToken : null;
  } catch {
    return null;
  }
}

export function createPeopleDataLabsProvider(options: PeopleDataLabsProviderOptions): LeadProvider<'linkedin'> {
  return {
    source: 'linkedin',
    name: 'people_data_labs',
    search: (request, context) => search(options.client, request, context),
  };
}

/**
 * requireEmail and requirePhone sent to PDL as `exists` clauses, so PDL (which bills every record it returns)
 * returns only people with the field; the worker checks the mapped value again.
 */
export function withContactFilters(query: Record<string, unknown>, filters: LinkedinFilters | undefined): Record<string, unknown> {
  const must: unknown[] = [];
  if (filters?.requireEmail)
    must.push({ bool: { should: [{ exists: { field: 'work_email' } }, { exists: { field: 'emails' } }], minimum_should_match: 1 } });
  if (filters?.requirePhone) must.push({ exists: { field: 'phone_numbers' } });
  return must.length === 0 ? query : { bool: { must: [query, ...must] } };
}

async function* search(client: UpstreamClient, request: GenerationRequest, context: SearchContext): AsyncGenerator<ProviderPage> {
  const { signal, deadline } = context;
  const filters = request.filters as LinkedinFilters | undefined;
  const query = withContactFilters(buildPersonQuery(request), filters);
  // PDL bills every record it returns, so never ask for more than the job can deliver.
  const size = Math.max(1, Math.min(MAX_SIZE, request.maxResults));
  let scrollToken = decodeCursor(context.cursor);
  let tokenFromCursor = scrollToken !== null;
  const seen = new Set<string>();
  for (;;) {
    let page;
    try {
      // The query must repeat unchanged with the scroll token.
      page = await personSearch(
        client,
        { query, size, dataset: personDataset(), ...(scrollToken === null ? {} : { scroll_token: scrollToken }) },
        signal,
        deadline,
      );
    } catch (error) {
      // A stored scroll token can expire before a replacement worker uses it: start over.
      if (tokenFromCursor && error instanceof UpstreamError && error.upstreamStatus === 400 && error.reason === 'provider_error') {
        tokenFromCursor = false;
        scrollToken = null;
        continue;
      }
      throw error;
    }
    tokenFromCursor = false;
    if (page === null) return; // 404: no (more) matches
    const retrievedAt = new Date().toISOString();
    const leads: ProviderLead[] = [];
    let filtered = 0;
    for (const person of page.people) {
      const mapped = personToLead(person, retrievedAt);
      if (mapped === null || seen.has(mapped.dedupKey)) continue;
      seen.add(mapped.dedupKey);
      // PDL filtered on the fields' presence; a plan that withholds them (PDL's `true`) leaves the value empty.
      if (passesLinkedinFilters(mapped.lead as LinkedinLead, filters)) leads.push(mapped);
      else filtered += 1;
    }
    const more = page.scrollToken !== null && page.people.length >= size;
    yield { leads, cursor: more ? encodeCursor(page.scrollToken as string) : null, ...(filtered > 0 ? { filtered } : {}) };
    if (!more) return;
    scrollToken = page.scrollToken;
  }
}

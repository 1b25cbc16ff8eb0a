import type { GenerationRequest } from '@leadgen/domain';
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

async function* search(client: UpstreamClient, request: GenerationRequest, context: SearchContext): AsyncGenerator<ProviderPage> {
  const { signal, deadline } = context;
  const query = buildPersonQuery(request);
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
    const leads: ProviderLead[] = [];
    for (const person of page.people) {
      const mapped = personToLead(person);
      if (mapped === null || seen.has(mapped.dedupKey)) continue;
      seen.add(mapped.dedupKey);
      leads.push(mapped);
    }
    const more = page.scrollToken !== null && page.people.length >= size;
    yield { leads, cursor: more ? encodeCursor(page.scrollToken as string) : null };
    if (!more) return;
    scrollToken = page.scrollToken;
  }
}

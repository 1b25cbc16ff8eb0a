import { ProviderError } from '../lead-provider';
import type { UpstreamClient } from '../upstream';

/** PDL's own bounds for one Person Search call. */
export const MAX_SIZE = 100;

export interface PersonSearchBody {
  query: Record<string, unknown>;
  size: number;
  /** which slices of PDL's person data to search (query.ts: personDataset, contactDataset) */
  dataset: string;
  scroll_token?: string;
}

/** A person record: PDL documents many fields; we read a few, each checked where it is used. */
export type PdlPerson = Record<string, unknown>;

export interface PersonSearchPage {
  people: PdlPerson[];
  total: number | null;
  scrollToken: string | null;
}

function malformed(what: string): ProviderError {
  return new ProviderError('provider_error', `people_data_labs: unexpected answer (${what})`);
}

export function parsePersonSearch(body: unknown): PersonSearchPage {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw malformed('not an object');
  const record = body as Record<string, unknown>;
  const data = record.data ?? [];
  if (!Array.isArray(data)) throw malformed('data is not a list');
  const people = data.filter((p): p is PdlPerson => p !== null && typeof p === 'object' && !Array.isArray(p));
  return {
    people,
    total: typeof record.total === 'number' ? record.total : null,
    scrollToken: typeof record.scroll_token === 'string' && record.scroll_token !== '' ? record.scroll_token : null,
  };
}

/**
 * One Person Search call. PDL answers 404 when nothing matches (and does not bill it): that is an
 * empty result, returned as null, not an error.
 */
export async function personSearch(
  client: UpstreamClient,
  body: PersonSearchBody,
  signal: AbortSignal,
  deadline: number,
): Promise<PersonSearchPage | null> {
  const response = await client.request({
    method: 'POST',
    path: 'v5/person/search',
    body,
    signal,
    deadline,
    acceptStatuses: [404],
  });
  if (response.status === 404) return null;
  return parsePersonSearch(response.body);
}

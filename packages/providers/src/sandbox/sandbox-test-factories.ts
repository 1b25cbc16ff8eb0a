import type { GenerationRequest, Lead } from '@leadgen/domain';
import type { ProviderPage, SearchContext } from '../provider';
import { createSandboxProvider } from './sandbox-provider';

export function aRequest(overrides: Partial<GenerationRequest> = {}): GenerationRequest {
  return { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 25, ...overrides };
}

export function aContext(overrides: Partial<SearchContext> = {}): SearchContext {
  return { signal: new AbortController().signal, cursor: null, deadline: Date.now() + 60_000, ...overrides };
}

export interface SearchOutcome {
  pages: ProviderPage[];
  leads: Lead[];
  keys: string[];
  error: unknown;
}

/** Runs a sandbox search to its end (or its error), with no page delay unless the keyword sets one. */
export async function runSearch(request: GenerationRequest, context: Partial<SearchContext> = {}, pageDelayMs = 0): Promise<SearchOutcome> {
  const provider = createSandboxProvider(request.source, { pageDelayMs });
  const pages: ProviderPage[] = [];
  let error: unknown = null;
  try {
    for await (const page of provider.search(request, aContext(context))) pages.push(page);
  } catch (err) {
    error = err;
  }
  const matches = pages.flatMap((page) => page.leads);
  return { pages, leads: matches.map((m) => m.lead), keys: matches.map((m) => m.dedupKey), error };
}

import type { GenerationRequest, Lead } from '@leadgen/domain';
import type { ProviderPage, SearchContext } from '../../src/lead-provider';
import { createSandboxProvider } from '../../src/sandbox/sandbox-provider';
import { context } from './provider-search';

export interface SearchOutcome {
  pages: ProviderPage[];
  leads: Lead[];
  keys: string[];
  error: unknown;
}

/** Runs a sandbox search to its end (or its error), with no page delay unless the keyword sets one. */
export async function runSearch(
  request: GenerationRequest,
  overrides: Partial<SearchContext> = {},
  pageDelayMs = 0,
): Promise<SearchOutcome> {
  const provider = createSandboxProvider(request.source, { pageDelayMs });
  const pages: ProviderPage[] = [];
  let error: unknown = null;
  try {
    for await (const page of provider.search(request, context(overrides))) pages.push(page);
  } catch (err) {
    error = err;
  }
  const matches = pages.flatMap((page) => page.leads);
  return { pages, leads: matches.map((m) => m.lead), keys: matches.map((m) => m.dedupKey), error };
}

import type { GenerationRequest } from '@leadgen/domain';
import type { WebsiteEnricherLike } from '../../src/enrichment';
import { finishedPage, type LeadProvider, type ProviderPage, type SearchContext } from '../../src/lead-provider';

/** Retries as in production, only faster: the suite stays quick and nothing depends on real delays. */
export const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5_000 };

export function context(overrides: Partial<SearchContext> = {}): SearchContext {
  return { signal: new AbortController().signal, cursor: null, deadline: Date.now() + 20_000, ...overrides };
}

export function request(overrides: Partial<GenerationRequest> = {}): GenerationRequest {
  return { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 25, ...overrides };
}

/**
 * Every page the search yields, each with its leads finished (finishedPage: websites read, addresses verified,
 * the dropped ones left out), until it ends or `stopAfterLeads` leads have come. The worker schedules each lead
 * itself (apps/worker/src/lead-pipeline.ts); this is the page-at-a-time view the adapters' tests check.
 */
export async function collect(
  provider: LeadProvider,
  req: GenerationRequest,
  ctx: SearchContext,
  stopAfterLeads = Infinity,
): Promise<ProviderPage[]> {
  const pages: ProviderPage[] = [];
  let leads = 0;
  for await (const raw of provider.search(req, ctx)) {
    const page = await finishedPage(raw, ctx.signal);
    pages.push(page);
    leads += page.leads.length;
    if (leads >= stopAfterLeads) break;
  }
  return pages;
}

/** The error a search ends with (fails the test when it ends without one). */
export async function failure(provider: LeadProvider, req: GenerationRequest, ctx: SearchContext): Promise<unknown> {
  try {
    await collect(provider, req, ctx);
  } catch (error) {
    return error;
  }
  throw new Error('the search ended without an error');
}

/** A stand-in for the website enricher: answers from a table, records what it was asked. */
export class StubEnricher implements WebsiteEnricherLike {
  readonly asked: string[] = [];
  constructor(
    private readonly answers: Record<
      string,
      { emails?: string[]; facebook?: string; instagram?: string; linkedin?: string } | 'throw' | 'hang'
    > = {},
  ) {}

  async enrich(websiteUrl: string, signal: AbortSignal) {
    this.asked.push(websiteUrl);
    const answer = this.answers[websiteUrl];
    if (answer === 'throw') throw new Error('enricher broke its promise');
    if (answer === 'hang') {
      await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    }
    const found = typeof answer === 'object' ? answer : {};
    return {
      emails: found.emails ?? [],
      socialProfiles: { facebook: found.facebook ?? null, instagram: found.instagram ?? null, linkedin: found.linkedin ?? null },
    };
  }
}

import {
  isSandboxKeyword,
  parseSandboxDirectives,
  passesGoogleMapsFilters,
  passesLinkedinFilters,
  passesShopifyFilters,
} from '@leadgen/domain';
import type {
  GenerationRequest,
  GoogleMapsFilters,
  Lead,
  LinkedinFilters,
  SandboxDirectives,
  ShopifyFilters,
  Source,
} from '@leadgen/domain';
import { metrics } from '@leadgen/ops';
import { sleep } from '../abortable-waits';
import { upstreamCallCounts } from '../upstream/upstream-client';
import { ProviderError, type LeadProvider, type ProviderPage, type SearchContext } from '../lead-provider';
import { MatchStream, defaultMatchCount } from './sandbox-matches';
import { toQuery } from './sandbox-query';
import { steerMail } from './sandbox-mail';
import { addSandboxDetails } from './sandbox-details';
import { sandboxTile } from './sandbox-area';

export const SANDBOX_PAGE_SIZE = 10;

export interface SandboxOptions {
  /** latency before each page, unless the keyword's delay=MS says otherwise */
  pageDelayMs: number;
}

/**
 * The offline provider of a source: deterministic synthetic leads, served like an upstream serves
 * them, in pages of 10 with latency between them, and steerable through `sandbox:` keywords.
 *
 * The cursor is the number of matches already served, as a decimal string ("30"): a page cut short
 * by fail_after still resumes at the right lead, which a page number could not.
 */
export function createSandboxProvider<S extends Source>(source: S, options: SandboxOptions): LeadProvider<S> {
  return {
    source,
    name: 'sandbox',
    search: (request, context) => search(source, request, context, options.pageDelayMs),
  };
}

async function* search(
  source: Source,
  request: GenerationRequest,
  context: SearchContext,
  pageDelayMs: number,
): AsyncGenerator<ProviderPage> {
  const { signal } = context;
  const directives = directivesIn(request.keyword);
  const delayMs = directives.delayMs ?? pageDelayMs;
  if (request.tile !== undefined) {
    yield* searchTile(request, context, delayMs);
    return;
  }
  const query = toQuery(source, request);
  // only=N and the default count are counted after shopify's requiredChannels filter: the upstream
  // filters server-side, so only=5 means five stores come back, the same promise as for other sources.
  const total = directives.empty ? 0 : (directives.only ?? defaultMatchCount(query));
  // the position in the result list at which the upstream breaks; fail is fail_after=0
  const failAt = directives.fail ? 0 : (directives.failAfter ?? Number.POSITIVE_INFINITY);
  let offset = cursorOffset(context.cursor);
  const matches = new MatchStream(query, total);
  matches.skip(offset);

  for (;;) {
    // each page is one upstream round trip: the latency comes first, then its answer or its error; each is
    // measured and counted as a real upstream's attempt is (upstream `sandbox`): in the job's `upstreamCalls` and
    // its run's `leadgen_upstream_calls_per_job`, so a new deployment's dashboard is not empty
    const started = performance.now();
    await sleep(delayMs, signal);
    signal.throwIfAborted();
    const attempt = (outcome: 'ok' | 'unauthorized' | '5xx') => {
      metrics.upstreamRequestDuration.observe({ upstream: 'sandbox', outcome }, (performance.now() - started) / 1000);
      const counts = upstreamCallCounts();
      counts?.set('sandbox', (counts.get('sandbox') ?? 0) + 1);
    };
    if (directives.unauthorized) {
      attempt('unauthorized');
      throw new ProviderError('provider_unauthorized', 'sandbox upstream refused the credentials (sandbox:unauthorized)', 401);
    }
    if (offset >= failAt) {
      attempt('5xx');
      throw new ProviderError('provider_error', `sandbox upstream failed after ${offset} results (sandbox directive)`, 500);
    }
    attempt('ok');
    const page = matches.take(Math.min(SANDBOX_PAGE_SIZE, failAt - offset));
    steerMail(page, directives.mail, offset);
    offset += page.length;
    // Decision 038: every field, deterministic per lead; then the request's filters, as a real adapter applies them.
    const retrievedAt = new Date().toISOString();
    for (const item of page) addSandboxDetails(item, query.state, query.city, retrievedAt);
    const leads = page.filter((item) => passesFilters(item.lead, request.filters));
    const filtered = page.length - leads.length;
    // reaching the failure point means one more request, the one that fails, so the cursor stays open
    const more = offset >= failAt || matches.hasMore();
    yield { leads, cursor: more ? String(offset) : null, ...(filtered > 0 ? { filtered } : {}) };
    if (!more) return;
  }
}

function passesFilters(lead: Lead, filters: GenerationRequest['filters']): boolean {
  if (lead.source === 'google_maps') return passesGoogleMapsFilters(lead, filters as GoogleMapsFilters | undefined);
  if (lead.source === 'linkedin') return passesLinkedinFilters(lead, filters as LinkedinFilters | undefined);
  return passesShopifyFilters(lead, filters as ShopifyFilters | undefined);
}

function directivesIn(keyword: string | undefined): SandboxDirectives {
  if (!isSandboxKeyword(keyword)) return {};
  const parsed = parseSandboxDirectives(keyword);
  // The API rejects malformed directives; one that slipped through (a job stored before a parser
  // change) runs unsteered rather than failing a paid job.
  return parsed.ok ? parsed.directives : {};
}

function cursorOffset(cursor: string | null): number {
  if (cursor === null) return 0;
  if (!/^\d{1,9}$/.test(cursor)) {
    throw new ProviderError('provider_error', `sandbox cannot resume from cursor "${cursor.slice(0, 40)}": not one it issued`);
  }
  return Number(cursor);
}

/**
 * An area search's tile (decision 039): the places the sandbox's map lists in the tile's rectangle (at most
 * 60, as Google), those inside the area and owned by the tile delivered, in pages of 10; the last page
 * reports what the tile's search listed. The cursor is "tile:<leads served>".
 */
async function* searchTile(request: GenerationRequest, context: SearchContext, delayMs: number): AsyncGenerator<ProviderPage> {
  const { signal, area } = context;
  if (area === undefined) throw new ProviderError('provider_error', 'sandbox: an area tile without its area');
  const { leads, found, outsideArea, saturated } = sandboxTile(request, request.tile!, area);
  const resumed = context.cursor?.startsWith('tile:') ? Number(context.cursor.slice(5)) : 0;
  let offset = Number.isInteger(resumed) && resumed >= 0 ? resumed : 0;
  do {
    await sleep(delayMs, signal);
    signal.throwIfAborted();
    const page = leads.slice(offset, offset + SANDBOX_PAGE_SIZE);
    offset += page.length;
    // Decision 038's fields, the place's location being where the map put it (the clipping read it), then the filters.
    const retrievedAt = new Date().toISOString();
    for (const { lead: item, location } of page) {
      addSandboxDetails(item, request.state, null, retrievedAt);
      if (item.lead.source === 'google_maps' && item.lead.place)
        item.lead.place.location = { lat: location.latitude, lng: location.longitude };
    }
    const kept = page.map((place) => place.lead).filter((item) => passesFilters(item.lead, request.filters));
    const filtered = page.length - kept.length;
    const last = offset >= leads.length;
    const tail = filtered > 0 ? { filtered } : {};
    yield last
      ? { leads: kept, cursor: null, tile: { found, outsideArea, saturated }, ...tail }
      : { leads: kept, cursor: `tile:${offset}`, ...tail };
  } while (offset < leads.length);
}

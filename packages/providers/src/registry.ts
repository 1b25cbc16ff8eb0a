import { Redis } from 'ioredis';
import type { Config } from '@leadgen/config';
import type { Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { createWebsiteEnricher, type EnrichmentStep, type WebsiteEnricherLike } from './enrichment';
import { createGooglePlacesProvider } from './google-places';
import { FleetRateLimiter, type RateLimiter, UpstreamClient } from './upstream';
import { createCompanyPeopleFinder, createPeopleDataLabsProvider } from './people-data-labs';
import type { LeadProvider } from './lead-provider';
import { createSandboxProvider } from './sandbox/sandbox-provider';
import { createStoreLeadsProvider } from './store-leads';

export interface ProviderDependencies {
  /** not used by the sandbox; real adapters share fleet-wide rate limits through it (default: config.redis.url) */
  redisUrl?: string;
  /** an existing connection to use instead of opening one; closeProviders leaves it open */
  redis?: Redis;
  /** replaces the website enricher built from config.enrichment (tests) */
  enricher?: WebsiteEnricherLike;
}

const closers = new WeakMap<Map<Source, LeadProvider>, () => Promise<void>>();

/**
 * Releases what createProviders opened (the rate limiters' Redis connection). Call it at shutdown,
 * after the last job has stopped; safe to call twice, and a no-op for sandbox-only maps.
 */
export async function closeProviders(providers: Map<Source, LeadProvider>): Promise<void> {
  const close = closers.get(providers);
  closers.delete(providers);
  if (close) await close();
}

/**
 * The providers for the sources this process runs: the real adapter where its API key is
 * configured, the sandbox otherwise. Only the requested sources are built, so a worker fleet for
 * one source never loads the others, and a sandbox-only process opens no Redis connection.
 */
export function createProviders(config: Config, sources: readonly Source[], deps: ProviderDependencies = {}): Map<Source, LeadProvider> {
  const providers = new Map<Source, LeadProvider>();
  const { googlePlaces, peopleDataLabs, storeLeads } = config.providers;
  const real = (source: Source) =>
    (source === 'google_maps' && googlePlaces.apiKey !== null) ||
    (source === 'linkedin' && peopleDataLabs.apiKey !== null) ||
    (source === 'shopify' && storeLeads.apiKey !== null);

  let redis: Redis | null = null;
  let ownsRedis = false;
  const connection = (): Redis => {
    if (redis === null) {
      ownsRedis = deps.redis === undefined;
      redis = deps.redis ?? new Redis(deps.redisUrl ?? config.redis.url, { maxRetriesPerRequest: 2, lazyConnect: true });
      // The limiter fails open when Redis is away; without a listener ioredis would print every retry.
      if (ownsRedis) redis.on('error', (error: unknown) => logger.warn('provider rate limit Redis connection error', { error }));
    }
    return redis;
  };
  // One limiter per upstream, shared by every adapter that calls it (linkedin and shopify both call PDL).
  const limiters = new Map<string, RateLimiter>();
  const limiter = (name: string, ratePerMin: number): RateLimiter => {
    let found = limiters.get(name);
    if (!found) {
      found = new FleetRateLimiter({ redis: connection(), key: `${config.redis.queuePrefix}:ratelimit:${name}`, ratePerMin });
      limiters.set(name, found);
    }
    return found;
  };
  let enrichment: EnrichmentStep | null = null;
  const enrichmentStep = (): EnrichmentStep => {
    enrichment ??= {
      // One enricher per process, so the per-host limit and the robots.txt cache are shared by
      // every job; each job enriches at most ENRICHMENT_CONCURRENCY sites at once (enrichLeads),
      // and the process as a whole at most that many per job slot.
      enricher:
        deps.enricher ??
        createWebsiteEnricher({ ...config.enrichment, concurrency: config.enrichment.concurrency * config.worker.concurrency }),
      concurrency: config.enrichment.concurrency,
      deadlineMarginMs: 1_000,
    };
    return enrichment;
  };
  const pdlClient = () =>
    new UpstreamClient({
      name: 'people_data_labs',
      baseUrl: peopleDataLabs.baseUrl,
      headers: { 'x-api-key': peopleDataLabs.apiKey ?? '' },
      rateLimiter: limiter('people_data_labs', peopleDataLabs.ratePerMin),
    });

  for (const source of sources) {
    if (!real(source)) {
      providers.set(source, createSandboxProvider(source, { pageDelayMs: config.sandbox.pageDelayMs }));
    } else if (source === 'google_maps') {
      const client = new UpstreamClient({
        name: 'google_places',
        baseUrl: googlePlaces.baseUrl,
        headers: { 'x-goog-api-key': googlePlaces.apiKey ?? '' },
        rateLimiter: limiter('google_places', googlePlaces.ratePerMin),
      });
      providers.set(source, createGooglePlacesProvider({ client, enrichment: enrichmentStep() }));
    } else if (source === 'linkedin') {
      providers.set(source, createPeopleDataLabsProvider({ client: pdlClient() }));
    } else {
      const client = new UpstreamClient({
        name: 'storeleads',
        baseUrl: storeLeads.baseUrl,
        headers: { authorization: `Bearer ${storeLeads.apiKey ?? ''}` },
        rateLimiter: limiter('storeleads', storeLeads.ratePerMin),
      });
      // The people lookup is optional: without a PDL key, contacts come from Store Leads alone.
      const people = peopleDataLabs.apiKey !== null ? createCompanyPeopleFinder(pdlClient()) : null;
      providers.set(source, createStoreLeadsProvider({ client, people, enrichment: enrichmentStep() }));
    }
  }
  closers.set(providers, async () => {
    const open = redis as Redis | null;
    if (open === null || !ownsRedis) return;
    // A lazy connection that never sent a command has nothing to say goodbye to.
    if (open.status === 'wait') open.disconnect();
    else await open.quit().catch(() => open.disconnect());
  });
  return providers;
}

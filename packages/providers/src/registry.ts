import type { Config } from '@leadgen/config';
import type { Source } from '@leadgen/domain';
import { closeRedis, redisConnection, redisKeys, type RedisClient } from '@leadgen/queue';
import { createWebsiteEnricher, type EnrichmentStep, type WebsiteEnricher, type WebsiteEnricherLike } from './enrichment';
import { createGooglePlacesProvider } from './google-places';
import { FleetRateLimiter, type RateLimiter, UpstreamClient } from './upstream';
import { createCompanyPeopleFinder, createPeopleDataLabsProvider } from './people-data-labs';
import type { LeadProvider, ProviderRegistry } from './lead-provider';
import { createSandboxProvider } from './sandbox/sandbox-provider';
import { createStoreLeadsProvider } from './store-leads';
import {
  createDnsMailCheck,
  createEmailVerifier,
  createMailboxStage,
  createSandboxMailboxEngine,
  createReacherEngine,
  createZeroBounceEngine,
  MailboxCache,
  type MailboxStage,
  sandboxMailAnswer,
  VerdictCache,
  withEmailVerification,
  type EmailVerifier,
} from './verification';

export interface ProviderDependencies {
  /** an existing connection to use instead of opening one; closeProviders leaves it open */
  redis?: RedisClient;
  /** replaces the website enricher built from config.enrichment (tests) */
  enricher?: WebsiteEnricherLike;
}

/**
 * Each provider with its leads' addresses verified (docs/api.md, "Email verification"): the sandbox's
 * `.example` domains by the sandbox rule, a real upstream's through DNS with the fleet-wide cache
 * and then, when EMAIL_VERIFIER names one, a mailbox engine (decision 034). One verifier of each
 * kind per process, so the DNS and engine concurrency limits are per worker.
 */
function verifying(
  config: Config,
  connection: () => RedisClient,
  limiter: (name: string, ratePerMin: number) => RateLimiter,
): <S extends Source>(provider: LeadProvider<S>) => LeadProvider<S> {
  const settings = config.verification;
  let sandboxVerifier: EmailVerifier | null = null;
  let dnsVerifier: EmailVerifier | null = null;
  return (provider) => {
    if (!settings.enabled) return provider;
    if (provider.name === 'sandbox') {
      sandboxVerifier ??= sandboxEmailVerifier(config);
      return withEmailVerification(provider, sandboxVerifier);
    }
    dnsVerifier ??= createEmailVerifier({
      check: createDnsMailCheck({ servers: settings.dnsServers, timeoutMs: settings.timeoutMs }),
      cache: new VerdictCache({
        redis: connection(),
        key: (domain) => redisKeys(config.redis).key('mailverdict', domain),
        floorSeconds: settings.cacheFloorSeconds,
        ceilingSeconds: Math.max(settings.cacheFloorSeconds, settings.cacheCeilingSeconds),
      }),
      concurrency: settings.concurrency,
      mailbox: mailboxStage(config, connection, limiter),
    });
    return withEmailVerification(provider, dnsVerifier);
  };
}

/**
 * The sandbox's verification, the same path as a live job's: its rule in place of DNS (`.example` never resolves),
 * then its own mailbox engine (createSandboxMailboxEngine) behind a real MailboxStage with the configured budget and
 * concurrency, whatever EMAIL_VERIFIER says (no call leaves the process, so none is counted or billed).
 */
function sandboxEmailVerifier(config: Config): EmailVerifier {
  const settings = config.verification;
  return createEmailVerifier({
    check: sandboxMailAnswer,
    cache: null,
    concurrency: settings.concurrency,
    mailbox: createMailboxStage({
      engine: createSandboxMailboxEngine(),
      cache: null,
      concurrency: settings.engineConcurrency,
      budgetMs: settings.pageBudgetMs,
      downProbeMs: settings.downProbeMs,
    }),
  });
}

/** The engine EMAIL_VERIFIER names, behind its fleet-wide rate limit and cache; null for `dns`. */
function mailboxStage(
  config: Config,
  connection: () => RedisClient,
  limiter: (name: string, ratePerMin: number) => RateLimiter,
): MailboxStage | null {
  const settings = config.verification;
  if (settings.engine === 'dns') return null;
  // Its calls count as the job's upstream calls (the job's log, leadgen_upstream_calls_per_job).
  const client = (name: string, baseUrl: string, ratePerMin: number, headers: Record<string, string>) =>
    new UpstreamClient({
      name,
      baseUrl,
      headers,
      rateLimiter: limiter(name, ratePerMin),
      retry: { maxAttempts: settings.engineAttempts },
      attemptTimeoutMs: settings.engineTimeoutMs,
    });
  const engine =
    settings.engine === 'reacher'
      ? createReacherEngine(
          client(
            'reacher',
            settings.reacherUrl ?? '',
            settings.reacherRatePerMin,
            settings.reacherSecret ? { 'x-reacher-secret': settings.reacherSecret } : {},
          ),
        )
      : createZeroBounceEngine(
          client('zerobounce', settings.zeroBounceBaseUrl, settings.zeroBounceRatePerMin, {}),
          settings.zeroBounceApiKey ?? '',
          settings.engineTimeoutMs,
        );
  const keys = redisKeys(config.redis);
  return createMailboxStage({
    engine,
    cache: new MailboxCache({
      redis: connection(),
      key: (kind, engineName, name) => keys.key(kind, engineName, name),
      addressTtlSeconds: settings.mailboxTtlSeconds,
      domainTtlSeconds: settings.catchAllTtlSeconds,
    }),
    concurrency: settings.engineConcurrency,
    budgetMs: settings.pageBudgetMs,
    downProbeMs: settings.downProbeMs,
  });
}

/** An upstream's settings as the configuration holds them. */
interface UpstreamSettings {
  baseUrl: string;
  ratePerMin: number;
}

/** What the sources of one process share, each part built the first time a factory asks for it. */
interface SharedParts {
  config: Config;
  /** a client of the named upstream, under that upstream's fleet-wide rate limit */
  upstream(name: string, settings: UpstreamSettings, headers: Record<string, string>): UpstreamClient;
  enrichment(): EnrichmentStep;
  pdlClient(): UpstreamClient;
}

/**
 * How each source's provider is built: the real adapter where its API key is configured, the
 * sandbox otherwise. A Record over every source, so a source added to the domain without a
 * provider here does not compile.
 */
export type ProviderFactories = { [S in Source]: (shared: SharedParts) => LeadProvider<S> };

const sandbox = <S extends Source>(source: S, config: Config): LeadProvider<S> =>
  createSandboxProvider(source, { pageDelayMs: config.sandbox.pageDelayMs });

export const PROVIDER_FACTORIES: ProviderFactories = {
  google_maps: ({ config, upstream, enrichment }) => {
    const { googlePlaces } = config.providers;
    if (googlePlaces.apiKey === null) return sandbox('google_maps', config);
    const client = upstream('google_places', googlePlaces, { 'x-goog-api-key': googlePlaces.apiKey });
    return createGooglePlacesProvider({ client, enrichment: enrichment(), fields: googlePlaces.fields === 'pro' ? 'pro' : 'enterprise' });
  },
  linkedin: ({ config, pdlClient }) =>
    config.providers.peopleDataLabs.apiKey === null ? sandbox('linkedin', config) : createPeopleDataLabsProvider({ client: pdlClient() }),
  shopify: ({ config, upstream, enrichment, pdlClient }) => {
    const { storeLeads, peopleDataLabs } = config.providers;
    if (storeLeads.apiKey === null) return sandbox('shopify', config);
    const client = upstream('storeleads', storeLeads, { authorization: `Bearer ${storeLeads.apiKey}` });
    // The people lookup is optional: without a PDL key, contacts come from Store Leads alone.
    const people = peopleDataLabs.apiKey !== null ? createCompanyPeopleFinder(pdlClient()) : null;
    return createStoreLeadsProvider({ client, people, enrichment: enrichment() });
  },
};

/** The providers one process built: the registry's entries for exactly the sources it asked for. */
export type LoadedProviders = Partial<ProviderRegistry>;

const closers = new WeakMap<LoadedProviders, () => Promise<void>>();

/**
 * Releases what createProviders opened (the website enricher's Chromium and connections, the rate limiters' Redis connection). Call it at shutdown,
 * after the last job has stopped; safe to call twice, and a no-op for sandbox-only processes.
 */
export async function closeProviders(providers: LoadedProviders): Promise<void> {
  const close = closers.get(providers);
  closers.delete(providers);
  if (close) await close();
}

/**
 * The providers for the sources this process runs, from PROVIDER_FACTORIES. Only the requested
 * sources are built, so a worker fleet for one source never loads the others, and a sandbox-only
 * process opens no Redis connection. A source the registry has no factory for is left out: the
 * caller decides what that means (the worker refuses to start).
 */
export function createProviders(config: Config, sources: readonly Source[], deps: ProviderDependencies = {}): LoadedProviders {
  let redis: RedisClient | null = null;
  let ownsRedis = false;
  const connection = (): RedisClient => {
    if (redis === null) {
      ownsRedis = deps.redis === undefined;
      // The limiter fails open when Redis is away; the connection logs its failures, bounded.
      redis = deps.redis ?? redisConnection(config.redis, 'lazy', 'provider-rate-limits');
    }
    return redis;
  };
  // One limiter per upstream, shared by every adapter that calls it (linkedin and shopify both call PDL).
  const limiters = new Map<string, RateLimiter>();
  const limiter = (name: string, ratePerMin: number): RateLimiter => {
    let found = limiters.get(name);
    if (!found) {
      found = new FleetRateLimiter({ redis: connection(), key: redisKeys(config.redis).key('ratelimit', name), ratePerMin });
      limiters.set(name, found);
    }
    return found;
  };
  let enrichment: EnrichmentStep | null = null;
  // the enricher this registry made (not one a test handed in): closeProviders closes it, Chromium and all
  let ownEnricher: WebsiteEnricher | null = null;
  const { peopleDataLabs } = config.providers;
  const shared: SharedParts = {
    config,
    upstream: (name, settings, headers) =>
      new UpstreamClient({ name, baseUrl: settings.baseUrl, headers, rateLimiter: limiter(name, settings.ratePerMin) }),
    enrichment() {
      enrichment ??= {
        // One enricher per process, so the per-host limit, the kept-alive connections and the robots.txt cache are
        // shared by every job, and ENRICHMENT_CONCURRENCY bounds the sites the process reads at once; each job
        // asks for as many as it still needs leads (the worker's lead pipeline, decision 037).
        enricher: deps.enricher ?? (ownEnricher = createWebsiteEnricher(config.enrichment)),
        concurrency: config.enrichment.concurrency,
        deadlineMarginMs: 1_000,
      };
      return enrichment;
    },
    pdlClient: () => shared.upstream('people_data_labs', peopleDataLabs, { 'x-api-key': peopleDataLabs.apiKey ?? '' }),
  };

  const verify = verifying(config, connection, limiter);
  const providers: LoadedProviders = {};
  const build = <S extends Source>(source: S) => {
    // Missing only for a source the type system did not see (a cast, plain JavaScript).
    if (!Object.hasOwn(PROVIDER_FACTORIES, source)) return;
    // TypeScript checks reads through a generic key, not writes: the factory of S builds a LeadProvider<S>.
    (providers as Record<S, LeadProvider<S>>)[source] = verify(PROVIDER_FACTORIES[source](shared));
  };
  for (const source of sources) build(source);
  closers.set(providers, async () => {
    // the browser tier's Chromium (decision 040) and the kept-alive connections; after the last job, as the caller says
    await (ownEnricher as WebsiteEnricher | null)?.close();
    const open = redis as RedisClient | null;
    // A lazy connection that never sent a command has nothing to say goodbye to: closeRedis drops it.
    if (open !== null && ownsRedis) await closeRedis(open);
  });
  return providers;
}

/**
 * The providers that serve test accounts' jobs (acc_test_…, decision 036): the sandbox of each source, whatever
 * upstreams the process has keys for, with the sandbox's address verification. Opens nothing to close.
 */
export function createTestProviders(config: Config, sources: readonly Source[]): LoadedProviders {
  const verifier = config.verification.enabled ? sandboxEmailVerifier(config) : null;
  const providers: LoadedProviders = {};
  const build = <S extends Source>(source: S) => {
    const provider = sandbox(source, config);
    (providers as Record<S, LeadProvider<S>>)[source] = verifier ? withEmailVerification(provider, verifier) : provider;
  };
  for (const source of sources) build(source);
  return providers;
}

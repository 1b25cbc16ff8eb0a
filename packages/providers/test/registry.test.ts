import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ConfigError, loadConfig } from '@leadgen/config';
import { SOURCES, type Source } from '@leadgen/domain';
import { closeProviders, createProviders, PROVIDER_FACTORIES, type ProviderFactories } from '../src/registry';
import { type GooglePlacesFake, makePlaces, startGooglePlacesFake } from '@leadgen/testing';
import { collect, context, request, StubEnricher } from './support/provider-search';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `leadgen-test-${randomUUID()}`;
let fake: GooglePlacesFake;
let redis: Redis;

beforeAll(async () => {
  fake = await startGooglePlacesFake('registry-key');
  fake.places = makePlaces(5);
  redis = new Redis(redisUrl);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await fake.close();
});

describe('provider registry', () => {
  it('when no credentials are configured, then every source is served by the sandbox and there is nothing to close', async () => {
    const providers = createProviders(loadConfig({}), SOURCES, {});
    expect(Object.values(providers).map((p) => p.name)).toEqual(['sandbox', 'sandbox', 'sandbox']);
    await closeProviders(providers);
  });

  it('when API keys are configured, then the real adapters are built, under the names job bodies show', async () => {
    const config = loadConfig({ GOOGLE_PLACES_API_KEY: 'g', PDL_API_KEY: 'p', STORELEADS_API_KEY: 's', QUEUE_PREFIX: prefix });
    const providers = createProviders(config, SOURCES, { enricher: new StubEnricher() });
    expect(Object.fromEntries(Object.entries(providers).map(([source, p]) => [source, p.name]))).toEqual({
      google_maps: 'google_places',
      linkedin: 'people_data_labs',
      shopify: 'storeleads',
    });
    await closeProviders(providers);
    await closeProviders(providers); // a second close is harmless
  });

  it('when only the sources of one fleet are asked for, then only those are built', () => {
    const providers = createProviders(loadConfig({ STORELEADS_API_KEY: 's' }), ['shopify'], {});
    expect(Object.keys(providers)).toEqual(['shopify']);
    return closeProviders(providers);
  });

  it('when the Google adapter is built from the configuration, then it searches the configured upstream under the fleet rate limit', async () => {
    const config = loadConfig({ GOOGLE_PLACES_API_KEY: 'registry-key', GOOGLE_PLACES_BASE_URL: fake.url, QUEUE_PREFIX: prefix });
    const providers = createProviders(config, ['google_maps'], { enricher: new StubEnricher() });
    try {
      const pages = await collect(providers.google_maps!, request(), context());
      expect(pages.flatMap((p) => p.leads)).toHaveLength(5);
      expect(await redis.exists(`${prefix}:ratelimit:google_places`)).toBe(1);
    } finally {
      await closeProviders(providers);
    }
  });

  it('when a source is asked for that the registry has no factory for, then it is left out for the caller to refuse', async () => {
    const providers = createProviders(loadConfig({}), ['linkedin', 'twitter' as Source], {});
    expect(Object.keys(providers)).toEqual(['linkedin']);
    await closeProviders(providers);
  });

  it('when the registry is declared, then every source has a factory, and one without a source does not compile', () => {
    expect(Object.keys(PROVIDER_FACTORIES).sort()).toEqual([...SOURCES].sort());
    const { google_maps, linkedin } = PROVIDER_FACTORIES;
    // @ts-expect-error shopify is missing: `npm run check` fails if a registry without it ever type-checks
    const withoutShopify: ProviderFactories = { google_maps, linkedin };
    expect(withoutShopify).not.toHaveProperty('shopify');
  });
});

describe('provider configuration', () => {
  it.each([
    ['GOOGLE_PLACES_BASE_URL', 'GOOGLE_PLACES_API_KEY'],
    ['PDL_BASE_URL', 'PDL_API_KEY'],
    ['STORELEADS_BASE_URL', 'STORELEADS_API_KEY'],
  ])('when %s is set without %s, then start-up stops with one clear line', (baseUrl, apiKey) => {
    let error: unknown;
    try {
      loadConfig({ [baseUrl]: 'http://127.0.0.1:9999' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([`${baseUrl} is set but ${apiKey} is not`]);
  });

  it('when a key is set without a base URL, or both are set, or the base URL is empty, then the configuration is accepted', () => {
    expect(loadConfig({ PDL_API_KEY: 'k' }).providers.peopleDataLabs).toMatchObject({
      apiKey: 'k',
      baseUrl: 'https://api.peopledatalabs.com',
    });
    expect(loadConfig({ PDL_API_KEY: 'k', PDL_BASE_URL: 'http://127.0.0.1:1' }).providers.peopleDataLabs.baseUrl).toBe(
      'http://127.0.0.1:1',
    );
    expect(loadConfig({ STORELEADS_BASE_URL: '' }).providers.storeLeads.apiKey).toBeNull();
  });
});

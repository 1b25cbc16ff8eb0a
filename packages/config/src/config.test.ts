import { ConfigError, loadConfig } from './index';

describe('loadConfig', () => {
  it('when nothing is set, then the documented defaults', () => {
    const config = loadConfig({});
    expect(config.http.port).toBe(3000);
    expect(config.database.url).toBe('postgresql://postgres@127.0.0.1:5432/leadgen');
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
    expect(config.api).toEqual({ syncWaitMs: 10_000, idempotencyTtlHours: 24, rateLimit: { generatePerMin: 120, readPerMin: 1200 } });
    expect(config.worker.sources).toEqual(['google_maps', 'linkedin', 'shopify']);
    expect(config.sandbox.pageDelayMs).toBe(50);
    expect(config.providers.googlePlaces.apiKey).toBeNull();
    expect(config.enrichment.allowPrivateNetworks).toBe(false);
  });

  it('when WORKER_SOURCES names one source, then only that one', () => {
    expect(loadConfig({ WORKER_SOURCES: ' shopify ' }).worker.sources).toEqual(['shopify']);
  });

  it('when several variables are bad, then one error names every one of them', () => {
    const attempt = () => loadConfig({ PORT: 'eighty', SYNC_WAIT_MS: '-1', WORKER_SOURCES: 'google_maps,yelp', DATABASE_URL: 'mysql://x' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const message = (error as ConfigError).message;
      for (const name of ['PORT', 'SYNC_WAIT_MS', 'WORKER_SOURCES', 'DATABASE_URL']) expect(message).toContain(name);
      expect(message.split('\n')).toHaveLength(1);
    }
  });

  it('when a secret is set, then a config error never repeats it', () => {
    try {
      loadConfig({ GOOGLE_PLACES_API_KEY: 'AIzaSECRET', PORT: 'x' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as Error).message).not.toContain('AIzaSECRET');
    }
  });
});

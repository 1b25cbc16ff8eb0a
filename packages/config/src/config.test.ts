import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES, ConfigError, DEFAULT_OPS_PORTS, loadConfig, opsPort } from './index';

describe('loadConfig', () => {
  it('when nothing is set, then the documented defaults', () => {
    const config = loadConfig({});
    expect(config.http.port).toBe(3000);
    expect(config.database.url).toBe('postgresql://postgres@127.0.0.1:5432/leadgen');
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
    expect(config.api).toEqual({ syncWaitMs: 10_000, idempotencyTtlHours: 24, authCacheMs: 5_000, rateLimit: { generatePerMin: 120, readPerMin: 1200 } });
    expect(config.worker.sources).toEqual(['google_maps', 'linkedin', 'shopify']);
    expect(config.sandbox.pageDelayMs).toBe(50);
    expect(config.providers.googlePlaces.apiKey).toBeNull();
    expect(config.enrichment.allowPrivateNetworks).toBe(false);
  });

  it('when ENRICHMENT_USER_AGENT is unset, then the crawler names itself and the deployment\'s public address; when set, it is used as given', () => {
    expect(loadConfig({}).enrichment.userAgent).toBe('LeadgenBot/1.0 (self-hosted lead generation service; reads public contact pages; honours robots.txt)');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://leads.acme.example/' }).enrichment.userAgent).toBe('LeadgenBot/1.0 (+https://leads.acme.example; reads public contact pages; honours robots.txt)');
    expect(loadConfig({ ENRICHMENT_USER_AGENT: 'AcmeLeads/2 (+https://acme.example/bot)' }).enrichment.userAgent).toBe('AcmeLeads/2 (+https://acme.example/bot)');
    expect(() => loadConfig({ ENRICHMENT_USER_AGENT: 'bad\nagent' })).toThrow(ConfigError);
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

  it('when OPS_PORT is unset, then each process its own port on loopback; 0 turns the listener off', () => {
    const config = loadConfig({});
    expect(config.ops).toEqual({ host: '127.0.0.1', port: null });
    expect(opsPort(config, 'api')).toBe(DEFAULT_OPS_PORTS.api);
    expect(opsPort(config, 'worker')).toBe(DEFAULT_OPS_PORTS.worker);
    expect(opsPort(loadConfig({ OPS_PORT: '0' }), 'worker')).toBe(0);
    expect(loadConfig({ OPS_PORT: '9100', OPS_HOST: '0.0.0.0' }).ops).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(loadConfig({ OPS_HOST: '::' }).ops.host).toBe('::');
  });

  it('when OPS_PORT or OPS_HOST is bad, then the error names it', () => {
    expect(() => loadConfig({ OPS_PORT: '70000' })).toThrow(/OPS_PORT/);
    expect(() => loadConfig({ OPS_HOST: 'not a host' })).toThrow(/OPS_HOST/);
  });

  it('when the README is read, then its configuration table documents every variable', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const undocumented = CONFIG_VARIABLES.filter((name) => !table.includes(`\`${name}\``));
    expect(undocumented).toEqual([]);
  });
});

describe('loadConfig: webhooks', () => {
  it('when nothing is set, then a worker delivers webhooks on the documented schedule', () => {
    const config = loadConfig({});
    expect(config.webhooks).toEqual({
      deliver: true,
      allowPrivateNetworks: false,
      timeoutMs: 15_000,
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      disableAfterMs: 3 * 24 * 3_600_000,
      concurrency: 10,
      lostAfterMs: 30_000,
      sweepMs: 15_000,
    });
  });

  it('when WORKER_SOURCES names only webhooks, then a worker for webhooks alone; when it names sources only, then none', () => {
    expect(loadConfig({ WORKER_SOURCES: 'webhooks' }).worker.sources).toEqual([]);
    expect(loadConfig({ WORKER_SOURCES: 'webhooks' }).webhooks.deliver).toBe(true);
    expect(loadConfig({ WORKER_SOURCES: 'shopify' }).webhooks.deliver).toBe(false);
    expect(() => loadConfig({ WORKER_SOURCES: 'webhook' })).toThrow(/WORKER_SOURCES/);
  });

  it('when the schedule is given in any unit, then milliseconds; a malformed one is refused', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '100ms, 2s,1m,1h,250' }).webhooks.retryScheduleMs).toEqual([100, 2_000, 60_000, 3_600_000, 250]);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5 minutes' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });
});

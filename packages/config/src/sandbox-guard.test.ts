import { loadConfig } from './load-config';
import { sandboxInProductionRefusal, sandboxServedSources } from './sandbox-guard';

const production = {
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: 'https://leads.example.com',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

describe('SANDBOX_IN_PRODUCTION', () => {
  it('when a source has no upstream key, then the sandbox serves it', () => {
    expect(sandboxServedSources(loadConfig({}), ['google_maps', 'linkedin', 'shopify'])).toEqual(['google_maps', 'linkedin', 'shopify']);
    expect(sandboxServedSources(loadConfig({ PDL_API_KEY: 'k' }), ['google_maps', 'linkedin', 'shopify'])).toEqual([
      'google_maps',
      'shopify',
    ]);
  });

  it('when production would serve a source from the sandbox, then the start is refused naming the source and its key, unless it is acknowledged', () => {
    expect(sandboxInProductionRefusal(loadConfig(production), ['linkedin'])).toMatch(
      /NODE_ENV=production but the sandbox would serve linkedin \(PDL_API_KEY unset\).*SANDBOX_IN_PRODUCTION=1/,
    );
    expect(sandboxInProductionRefusal(loadConfig({ ...production, SANDBOX_IN_PRODUCTION: '1' }), ['linkedin'])).toBeNull();
    expect(sandboxInProductionRefusal(loadConfig({ ...production, PDL_API_KEY: 'k' }), ['linkedin'])).toBeNull();
    // Outside production the sandbox is the point.
    expect(sandboxInProductionRefusal(loadConfig({ NODE_ENV: 'development' }), ['linkedin'])).toBeNull();
  });
});

describe('QUEUE_OPEN_JOBS_PER_ACCOUNT', () => {
  it('when unset, then 4; 0 turns the cap off; a negative or fractional value is refused naming the variable', () => {
    expect(loadConfig({}).queue.share).toBe(4);
    expect(loadConfig({ QUEUE_OPEN_JOBS_PER_ACCOUNT: '0' }).queue.share).toBe(0);
    expect(loadConfig({ QUEUE_OPEN_JOBS_PER_ACCOUNT: '25' }).queue.share).toBe(25);
    expect(() => loadConfig({ QUEUE_OPEN_JOBS_PER_ACCOUNT: '-1' })).toThrow(/QUEUE_OPEN_JOBS_PER_ACCOUNT/);
    expect(() => loadConfig({ QUEUE_OPEN_JOBS_PER_ACCOUNT: '2.5' })).toThrow(/QUEUE_OPEN_JOBS_PER_ACCOUNT/);
  });
});

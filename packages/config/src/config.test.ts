import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Source } from '@leadgen/domain';
import type { LogLevel } from '@leadgen/logger';
import {
  CONFIG_VARIABLES,
  ConfigError,
  acknowledgedUnsafeSwitches,
  DEFAULT_OPS_PORTS,
  loadConfig,
  opsPort,
  readsVariable,
  renderConfigTable,
  secretVariablesOf,
  withConfigTable,
  type Config,
} from './index';
import { VARIABLES } from './variables';
import { parsePostgresUrl } from './postgres-url';

const BASE = 'https://leads.example.com';

describe('loadConfig', () => {
  it('when nothing is set, then the documented defaults', () => {
    const config = loadConfig({});
    expect(config.http.port).toBe(3000);
    expect(config.database.url).toBe('postgresql://postgres@127.0.0.1:5432/leadgen');
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
    expect(config.api).toEqual({
      syncWaitMs: 10_000,
      idempotencyTtlHours: 24,
      authCacheMs: 5_000,
      suppressionsPerAccount: 1_000_000,
      rateLimit: {
        generatePerMin: 120,
        readPerMin: 1200,
        exportsAtOnce: 2,
        inFlightPerAccount: 2,
        inFlightRest: 2,
        inFlightRestMinBusy: 0.5,
        inFlightWaitMs: 1_000,
        unknownKeyPerMin: 60,
      },
    });
    expect(config.worker.sources).toEqual(['google_maps', 'linkedin', 'shopify']);
    expect(config.sandbox.pageDelayMs).toBe(50);
    expect(config.providers.googlePlaces.apiKey).toBeNull();
    expect(config.enrichment.allowPrivateNetworks).toBe(false);
  });

  it("when ENRICHMENT_USER_AGENT is unset, then the crawler names itself and the deployment's public address; when set, it is used as given", () => {
    expect(loadConfig({}).enrichment.userAgent).toBe(
      'LeadgenBot/1.0 (self-hosted lead generation service; reads public contact pages; honours robots.txt)',
    );
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://leads.acme.example/' }).enrichment.userAgent).toBe(
      'LeadgenBot/1.0 (+https://leads.acme.example; reads public contact pages; honours robots.txt)',
    );
    expect(loadConfig({ ENRICHMENT_USER_AGENT: 'AcmeLeads/2 (+https://acme.example/bot)' }).enrichment.userAgent).toBe(
      'AcmeLeads/2 (+https://acme.example/bot)',
    );
    expect(() => loadConfig({ ENRICHMENT_USER_AGENT: 'bad\nagent' })).toThrow(ConfigError);
  });

  it('when TRUST_PROXY is a hop count, addresses or CIDRs, then Express gets them; a typo stops the start', () => {
    expect(loadConfig({}).http.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).http.trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback,2001:db8::/32' }).http.trustProxy).toEqual([
      '10.0.0.0/8',
      'loopback',
      '2001:db8::/32',
    ]);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: 'ingress-nginx' })).toThrow(/TRUST_PROXY: must be a hop count/);
  });

  it('when only the former name WORKER_SOURCES is set, then it is not read: the worker serves every queue', () => {
    expect(loadConfig({ WORKER_SOURCES: 'linkedin' })).toMatchObject({ worker: { sources: ['google_maps', 'linkedin', 'shopify'] } });
  });

  it('when WORKER_QUEUES names one source, then only that one', () => {
    expect(loadConfig({ WORKER_QUEUES: ' shopify ' }).worker.sources).toEqual(['shopify']);
  });

  it('when several variables are bad, then one error names every one of them', () => {
    const attempt = () => loadConfig({ PORT: 'eighty', SYNC_WAIT_MS: '-1', WORKER_QUEUES: 'google_maps,yelp', DATABASE_URL: 'mysql://x' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const message = (error as ConfigError).message;
      for (const name of ['PORT', 'SYNC_WAIT_MS', 'WORKER_QUEUES', 'DATABASE_URL']) expect(message).toContain(name);
      expect(message.split('\n')).toHaveLength(1);
    }
  });

  it('when DATABASE_URL lists several hosts as libpq does, then it is taken as given, and a malformed list is refused without echoing the URL', () => {
    const url = 'postgresql://app:pw-h39b@db-a:5432,db-b:5433/leadgen?target_session_attrs=read-write&connect_timeout=3';
    expect(loadConfig({ DATABASE_URL: url }).database.url).toBe(url);
    expect(parsePostgresUrl(url)).toMatchObject({
      hosts: ['db-a:5432', 'db-b:5433'],
      hostUrls: [
        'postgresql://app:pw-h39b@db-a:5432/leadgen?connect_timeout=3',
        'postgresql://app:pw-h39b@db-b:5433/leadgen?connect_timeout=3',
      ],
      targetSessionAttrs: 'read-write',
      connectTimeoutMs: 3000,
      database: 'leadgen',
    });
    expect(parsePostgresUrl('postgres://u@[::1],h2/db')).toMatchObject({ hosts: ['[::1]:5432', 'h2:5432'], targetSessionAttrs: 'any' });
    for (const [bad, why] of [
      ['postgresql://app:pw-h39b@db-a:5432,db-b/leadgen', /a port for every host or for none/],
      ['postgresql://app:pw-h39b@db-a,,db-b/leadgen', /hosts as `host\[:port\]`/],
      [
        'postgresql://app:pw-h39b@db-a,db-b/leadgen?target_session_attrs=primary-ish',
        /target_session_attrs=primary-ish: it must be one of/,
      ],
      ['mysql://app:pw-h39b@db-a/leadgen', /not a postgres/],
    ] as const) {
      expect(() => loadConfig({ DATABASE_URL: bad })).toThrow(why);
      expect(() => loadConfig({ DATABASE_URL: bad })).not.toThrow(/pw-h39b/);
    }
  });

  it('when a Redis topology is set, then cluster nodes and sentinels are read as lists, and contradictions are refused', () => {
    const cluster = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-2.internal:7001', QUEUE_PREFIX: '{leadgen}' }).redis;
    expect(cluster.clusterNodes).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-2.internal', port: 7001 },
    ]);
    expect(cluster.queuePrefix).toBe('{leadgen}');
    expect(loadConfig({ REDIS_SENTINELS: 's1:26379,s2:26379', REDIS_SENTINEL_NAME: 'main' }).redis).toMatchObject({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      sentinelName: 'main',
    });
    const refused = (env: Record<string, string>) => () => loadConfig(env);
    expect(refused({ REDIS_CLUSTER_NODES: 'no-port' })).toThrow(/REDIS_CLUSTER_NODES: must be `host:port` pairs/);
    expect(refused({ REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINELS: 'b:2' })).toThrow(/REDIS_SENTINELS and REDIS_CLUSTER_NODES are both set/);
    expect(refused({ REDIS_SENTINEL_NAME: 'main' })).toThrow(/REDIS_SENTINEL_NAME is set but REDIS_SENTINELS is not/);
    expect(refused({ REDIS_TLS_CA: '/ca.pem' })).toThrow(/REDIS_TLS_CA set but TLS is off/);
    expect(loadConfig({ REDIS_URL: 'rediss://r:6380', REDIS_TLS_CA: '/ca.pem' }).redis.tlsCa).toBe('/ca.pem');
    expect(refused({ QUEUE_PREFIX: '{a}{b}' })).toThrow(/QUEUE_PREFIX/);
    expect(refused({ QUEUE_PREFIX: 'a{b' })).toThrow(/QUEUE_PREFIX/);
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

  it('when several variables are bad, then the error names each with the rule it broke, WORKER_QUEUES and a lone base URL included', () => {
    expect(() => loadConfig({ WORKER_QUEUES: 'google_maps,yelp', PDL_BASE_URL: 'http://127.0.0.1:9' })).toThrow(
      new ConfigError([
        'WORKER_QUEUES: must list sources from google_maps, linkedin, shopify or webhooks (got "google_maps,yelp")',
        'PDL_BASE_URL is set but PDL_API_KEY is not',
      ]),
    );
    expect(() => loadConfig({ WORKER_QUEUES: ' , ' })).toThrow(/WORKER_QUEUES: must list sources/);
    expect(loadConfig({ WORKER_QUEUES: 'shopify,linkedin,shopify' }).worker.sources).toEqual(['shopify', 'linkedin']);
  });

  it('when an entry point reads a bad configuration, then it exits 78 with one line on stderr naming every bad variable', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '-e', "require('@leadgen/config').loadConfigOrExit(); console.log('started')"],
      {
        cwd: path.resolve(__dirname, '../../..'),
        env: { ...process.env, PORT: 'eighty', WORKER_QUEUES: 'yelp', PDL_BASE_URL: 'http://127.0.0.1:9', PDL_API_KEY: '' },
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(78);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      'Invalid configuration: PORT: must be a number; WORKER_QUEUES: must list sources from google_maps, linkedin, shopify or webhooks (got "yelp"); PDL_BASE_URL is set but PDL_API_KEY is not',
    ]);
  }, 30_000);

  it('when PUBLIC_BASE_URL ends with slashes, then they are dropped', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://leads.acme.example//' }).http.publicBaseUrl).toBe('https://leads.acme.example');
  });
});

describe('the declaration', () => {
  it('when every variable is listed, then each has a unique upper-case name and a description', () => {
    expect(new Set(CONFIG_VARIABLES).size).toBe(CONFIG_VARIABLES.length);
    for (const v of VARIABLES) {
      expect(v.name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(v.description.length).toBeGreaterThan(5);
    }
  });

  it("when the grouped configuration is typed, then it is the declaration's (checked by tsc)", () => {
    const config: Config = loadConfig({});
    const typed: {
      env: 'development' | 'production' | 'test';
      level: LogLevel;
      sources: Source[];
      opsPort: number | null;
      publicBaseUrl: string | null;
      apiKey: string | null;
      writable: boolean;
    } = {
      env: config.env,
      level: config.log.level,
      sources: config.worker.sources,
      opsPort: config.ops.port,
      publicBaseUrl: config.http.publicBaseUrl,
      apiKey: config.providers.storeLeads.apiKey,
      writable: config.operatorBoardWritable,
    };
    expect(typed).toEqual({
      env: 'development',
      level: 'info',
      sources: ['google_maps', 'linkedin', 'shopify'],
      opsPort: null,
      publicBaseUrl: null,
      apiKey: null,
      writable: false,
    });
    expect(config.http.bodyLimitBytes).toBe(16 * 1024);
  });

  it('when docs/configuration.md is read, then its configuration table is the one the declaration writes (npm run docs:config)', () => {
    const page = readFileSync(path.resolve(__dirname, '../../../docs/configuration.md'), 'utf8');
    expect(withConfigTable(page)).toBe(page);
    for (const name of CONFIG_VARIABLES) expect(renderConfigTable()).toContain(`| \`${name}\` |`);
  });

  it('when a page has no configuration table markers, then writing it is refused', () => {
    expect(() => withConfigTable('# no table here\n')).toThrow(/config-table/);
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
      concurrencyPerEndpoint: 2,
      concurrencyPerAccount: 5,
      lostAfterMs: 30_000,
      sweepMs: 15_000,
      retentionDays: null,
    });
  });

  it('when WEBHOOK_DELIVERY_RETENTION_DAYS is set, then as set; under 3 days (a retry round lasts about 28 hours), refused', () => {
    expect(loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '90' }).webhooks.retentionDays).toBe(90);
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '2' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS/);
  });

  it('when WORKER_QUEUES names only webhooks, then a worker for webhooks alone; when it names sources only, then none', () => {
    expect(loadConfig({ WORKER_QUEUES: 'webhooks' }).worker.sources).toEqual([]);
    expect(loadConfig({ WORKER_QUEUES: 'webhooks' }).webhooks.deliver).toBe(true);
    expect(loadConfig({ WORKER_QUEUES: 'shopify' }).webhooks.deliver).toBe(false);
    expect(() => loadConfig({ WORKER_QUEUES: 'webhook' })).toThrow(/WORKER_QUEUES/);
  });

  it('when WEBHOOK_CONCURRENCY_PER_ACCOUNT is unset, then half of WEBHOOK_CONCURRENCY, at least 1; set, then as set, 0 for no cap', () => {
    expect([1, 2, 4, 5, 40].map((n) => loadConfig({ WEBHOOK_CONCURRENCY: String(n) }).webhooks.concurrencyPerAccount)).toEqual([
      1, 1, 2, 2, 20,
    ]);
    expect(loadConfig({ WEBHOOK_CONCURRENCY: '40', WEBHOOK_CONCURRENCY_PER_ACCOUNT: '3' }).webhooks.concurrencyPerAccount).toBe(3);
    expect(loadConfig({ WEBHOOK_CONCURRENCY_PER_ACCOUNT: '0' }).webhooks.concurrencyPerAccount).toBe(0);
    expect(() => loadConfig({ WEBHOOK_CONCURRENCY_PER_ACCOUNT: '-1' })).toThrow(/WEBHOOK_CONCURRENCY_PER_ACCOUNT/);
  });

  it('when the schedule is given in any unit, then milliseconds; a malformed one is refused', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '100ms, 2s,1m,1h,250' }).webhooks.retryScheduleMs).toEqual([
      100, 2_000, 60_000, 3_600_000, 250,
    ]);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5 minutes' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });
});

describe('PUBLIC_BASE_URL in production', () => {
  const key = Buffer.alloc(32, 1).toString('base64');

  it('when the API or a worker starts in production without it, then it is refused: a lead notice must say where its person objects', () => {
    const production = { NODE_ENV: 'production', SECRETS_ENCRYPTION_KEY: key };
    expect(() => loadConfig(production, 'api')).toThrow(/PUBLIC_BASE_URL: is required in production/);
    expect(() => loadConfig({ ...production, WORKER_QUEUES: 'google_maps' }, 'worker')).toThrow(
      /PUBLIC_BASE_URL: is required in production/,
    );
    expect(() => loadConfig({ ...production, WORKER_QUEUES: 'webhooks' }, 'worker')).toThrow(/PUBLIC_BASE_URL: is required in production/);
    for (const kind of ['migrate', 'admin'] as const) expect(() => loadConfig(production, kind)).not.toThrow();
    expect(loadConfig({ ...production, PUBLIC_BASE_URL: `${BASE}/` }, 'api').http.publicBaseUrl).toBe(BASE);
    expect(loadConfig({ NODE_ENV: 'development' }, 'api').http.publicBaseUrl).toBeNull();
  });
});

describe('SECRETS_ENCRYPTION_KEY', () => {
  const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');

  it('when production runs without it, then the configuration is refused; elsewhere it may be unset', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SECRETS_ENCRYPTION_KEY.*required/);
    expect(loadConfig({ NODE_ENV: 'development' }).secrets.encryptionKeys).toBeNull();
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: BASE, SECRETS_ENCRYPTION_KEY: key(1) }).secrets.encryptionKeys).toEqual([
      Buffer.alloc(32, 1),
    ]);
  });

  it('when a production process that never seals a secret starts without it, then it starts; one that does is refused', () => {
    const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: BASE };
    expect(() => loadConfig({ ...production, WORKER_QUEUES: 'shopify' }, 'worker')).not.toThrow();
    expect(() => loadConfig({ ...production, WORKER_QUEUES: 'google_maps,linkedin' }, 'worker')).not.toThrow();
    expect(() => loadConfig({ ...production, WORKER_QUEUES: 'shopify,webhooks' }, 'worker')).toThrow(
      /SECRETS_ENCRYPTION_KEY: is required in production/,
    );
    expect(() => loadConfig(production, 'worker')).toThrow(/SECRETS_ENCRYPTION_KEY/); // every queue, webhooks included
    for (const kind of ['api', 'migrate', 'admin'] as const) expect(() => loadConfig(production, kind)).toThrow(/SECRETS_ENCRYPTION_KEY/);
    expect(() => loadConfig({ ...production, WORKER_QUEUES: 'webhooks', SECRETS_ENCRYPTION_KEY: key(3) }, 'worker')).not.toThrow();
  });

  it('when several keys are given, then they are read newest first; a key that is not 32 bytes of base64 is refused', () => {
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: `${key(2)}, ${key(1)}` }).secrets.encryptionKeys).toEqual([
      Buffer.alloc(32, 2),
      Buffer.alloc(32, 1),
    ]);
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/SECRETS_ENCRYPTION_KEY.*32 bytes/);
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: 'not base64!' })).toThrow(/SECRETS_ENCRYPTION_KEY/);
  });
});

describe('which process reads which secret variable (what Kubernetes hands each pod)', () => {
  const names = (process: Parameters<typeof secretVariablesOf>[0]) => secretVariablesOf(process).map((v) => v.name);

  it('when the migrations are asked, then they read the database (as the runtime role and as its owner) and the sealing key only', () => {
    expect(names({ kind: 'migrate' })).toEqual(['DATABASE_URL', 'DATABASE_OWNER_URL', 'SECRETS_ENCRYPTION_KEY']);
  });

  it("when a worker is asked, then it reads its own queues' upstream keys and no other's, nor the operator password", () => {
    expect(names({ kind: 'worker', queues: ['google_maps'] })).toContain('GOOGLE_PLACES_API_KEY');
    expect(names({ kind: 'worker', queues: ['google_maps'] })).not.toContain('PDL_API_KEY');
    expect(names({ kind: 'worker', queues: ['shopify'] })).toEqual(expect.arrayContaining(['PDL_API_KEY', 'STORELEADS_API_KEY']));
    expect(names({ kind: 'worker', queues: ['webhooks'] }).filter((n) => n.endsWith('_API_KEY'))).toEqual([]);
    expect(names({ kind: 'worker', queues: ['google_maps', 'linkedin', 'shopify', 'webhooks'] })).not.toContain('OPERATOR_PASSWORD');
    // A worker of every queue (the default WORKER_QUEUES) reads every upstream's key.
    expect(names({ kind: 'worker', queues: ['google_maps', 'linkedin', 'shopify'] })).toEqual(
      expect.arrayContaining(['GOOGLE_PLACES_API_KEY', 'PDL_API_KEY', 'STORELEADS_API_KEY']),
    );
  });

  it('when the API is asked, then it reads the operator password and no upstream key it does not look at', () => {
    expect(names({ kind: 'api' })).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'OPERATOR_PASSWORD']));
    // Google's key: area quotes list their tiles from the API (decision 039); PDL's is read by workers only.
    expect(names({ kind: 'api' })).toContain('GOOGLE_PLACES_API_KEY');
    expect(names({ kind: 'api' })).not.toContain('PDL_API_KEY');
  });

  it('when a variable declares no readers, then every process reads it; secret ones all declare theirs', () => {
    const logLevel = VARIABLES.find((v) => v.name === 'LOG_LEVEL')!;
    expect(readsVariable({ kind: 'migrate' }, logLevel)).toBe(true);
    expect(readsVariable({ kind: 'worker', queues: [] }, logLevel)).toBe(true);
    expect(VARIABLES.filter((v) => v.options.secret && !v.options.readBy?.length).map((v) => v.name)).toEqual([]);
  });
});

describe('unsafe switches in production', () => {
  const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: BASE, SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') };

  it.each(['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'ENRICHMENT_ALLOW_PRIVATE_NETWORKS', 'OPERATOR_BOARD_WRITABLE'])(
    'when %s is on with NODE_ENV=production and not acknowledged, then the start is refused naming it and the way out',
    (name) => {
      expect(() => loadConfig({ ...production, [name]: '1' })).toThrow(
        new RegExp(`${name} is on with NODE_ENV=production: unset it, or set PRODUCTION_UNSAFE_ACKNOWLEDGED=${name}`),
      );
      expect(loadConfig({ ...production, [name]: '1', PRODUCTION_UNSAFE_ACKNOWLEDGED: name }).env).toBe('production');
      expect(acknowledgedUnsafeSwitches({ ...production, [name]: '1', PRODUCTION_UNSAFE_ACKNOWLEDGED: name })).toEqual([name]);
      // Outside production the switch needs nothing.
      expect(() => loadConfig({ [name]: '1' })).not.toThrow();
    },
  );

  it('when several are on, then each is named; acknowledging one leaves the other refused; a misspelt name is refused', () => {
    const both = { ...production, WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', OPERATOR_BOARD_WRITABLE: 'true' };
    expect(() => loadConfig(both)).toThrow(/WEBHOOK_ALLOW_PRIVATE_NETWORKS is on.*OPERATOR_BOARD_WRITABLE is on/);
    expect(() => loadConfig({ ...both, PRODUCTION_UNSAFE_ACKNOWLEDGED: 'OPERATOR_BOARD_WRITABLE' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_NETWORKS is on/,
    );
    expect(() =>
      loadConfig({ ...both, PRODUCTION_UNSAFE_ACKNOWLEDGED: 'OPERATOR_BOARD_WRITABLE,WEBHOOK_ALLOW_PRIVATE_NETWORKS' }),
    ).not.toThrow();
    expect(() => loadConfig({ ...production, PRODUCTION_UNSAFE_ACKNOWLEDGED: 'WEBHOOK_ALLOW_PRIVATE_NETWORK' })).toThrow(
      /PRODUCTION_UNSAFE_ACKNOWLEDGED: names switches that need no acknowledgement \(WEBHOOK_ALLOW_PRIVATE_NETWORK\)/,
    );
    expect(loadConfig(production).productionUnsafeAcknowledged).toBeNull();
  });
});

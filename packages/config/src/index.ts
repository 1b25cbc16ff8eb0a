import Joi from 'joi';
import { SOURCES, type Source } from '@leadgen/domain';

// --- Webhooks (issue 12, docs/decisions/016-webhooks.md) ---------------------------------------
// A worker delivers webhooks when WORKER_SOURCES lists `webhooks` (it does by default).
const WEBHOOK_WORKER_ENTRY = 'webhooks';
const DURATION = /^(\d+)(ms|s|m|h)?$/;
const DURATION_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const WEBHOOK_VARIABLES = {
  /** true: webhook targets may be loopback or private addresses, and plain http (tests, a private network) */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: Joi.boolean().truthy('1').falsy('0').default(false),
  /** an attempt that has not answered 2xx within this is a failure */
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(15_000),
  /** waits between a delivery's attempts (each with ±20 % jitter), e.g. `5s,5m,30m,2h,5h,10h,10h`: its length is the retries */
  WEBHOOK_RETRY_SCHEDULE: Joi.string().pattern(/^\s*\d+(ms|s|m|h)?(\s*,\s*\d+(ms|s|m|h)?)*\s*$/).default('5s,5m,30m,2h,5h,10h,10h'),
  /** an endpoint whose every attempt failed for this long is disabled (reason `failing`) */
  WEBHOOK_DISABLE_AFTER_MS: Joi.number().integer().min(1_000).default(3 * 24 * 3_600_000),
  /** deliveries at once per worker process, apart from the lead jobs' slots */
  WEBHOOK_CONCURRENCY: Joi.number().integer().min(1).max(1_000).default(10),
  /** a pending delivery this far past its due time and without a queue entry is enqueued again */
  WEBHOOK_LOST_AFTER_MS: Joi.number().integer().min(1_000).default(30_000),
  /** how often the fleet (one worker per period) looks for such deliveries */
  WEBHOOK_SWEEP_MS: Joi.number().integer().min(1_000).default(15_000),
};

function parseRetrySchedule(value: string): number[] {
  return value.split(',').map((part) => {
    const [, amount, unit] = DURATION.exec(part.trim()) ?? [];
    return Number(amount) * (DURATION_MS[unit ?? 'ms'] ?? 1);
  });
}
// --- end of webhooks ---------------------------------------------------------------------------

/**
 * Every environment variable the service reads, in one place. Read once at start-up, validated,
 * typed and grouped; every bad variable is reported together. Defaults suit a laptop.
 */
const VARIABLES = {
  NODE_ENV: Joi.string().valid('development', 'production', 'test').default('development'),
  LOG_LEVEL: Joi.string().valid('error', 'warn', 'info', 'http', 'debug', 'silent').default('info'),
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  /** absolute base for pollUrl and Location; unset means root-relative paths */
  PUBLIC_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }).optional(),
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }).default('postgresql://postgres@127.0.0.1:5432/leadgen'),
  /** connections per process, whatever WORKER_CONCURRENCY: a job borrows one for a statement, not for its life */
  DATABASE_POOL_SIZE: Joi.number().integer().min(1).max(500).default(10),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }).default('redis://127.0.0.1:6379'),
  /** BullMQ key prefix, so several deployments (or test runs) can share one Redis */
  QUEUE_PREFIX: Joi.string().pattern(/^[A-Za-z0-9_:-]+$/).default('leadgen'),
  SYNC_WAIT_MS: Joi.number().integer().min(0).max(60_000).default(10_000),
  /** how long an API process keeps a live key's account in memory: a revoked key stops working within this */
  AUTH_CACHE_MS: Joi.number().integer().min(0).max(60_000).default(5_000),
  IDEMPOTENCY_TTL_HOURS: Joi.number().integer().min(1).max(24 * 30).default(24),
  RATE_LIMIT_GENERATE_PER_MIN: Joi.number().integer().min(1).default(120),
  RATE_LIMIT_READ_PER_MIN: Joi.number().integer().min(1).default(1200),
  SHUTDOWN_GRACE_MS: Joi.number().integer().min(0).default(25_000),
  /** operations port (/healthz, /readyz): unset = the process's own default (DEFAULT_OPS_PORTS), 0 = no listener */
  OPS_PORT: Joi.number().integer().min(0).max(65535).optional(),
  /** address the operations port listens on; the image sets 0.0.0.0 so probes from outside the container reach it */
  OPS_HOST: Joi.string().hostname().default('127.0.0.1'),
  /** Bull Board at /admin/queues (HTTP Basic, user `operator`); unset: the board is not mounted */
  OPERATOR_PASSWORD: Joi.string().min(12).optional(),
  /** 1: the board's write actions (retry, clean, remove, promote, pause...) are enabled; default read-only */
  OPERATOR_BOARD_WRITABLE: Joi.boolean().truthy('1').falsy('0').default(false),
  /** jobs at once per source per worker process; I/O-bound sources can hold thousands (they hold no connection while waiting) */
  WORKER_CONCURRENCY: Joi.number().integer().min(1).max(10_000).default(5),
  /** the queues this worker serves: sources, and `webhooks` for webhook deliveries */
  WORKER_SOURCES: Joi.string().default([...SOURCES, 'webhooks'].join(',')),
  JOB_TIMEOUT_MS: Joi.number().integer().min(100).default(300_000),
  /** how long a worker's hold on a job lasts without renewal: a killed worker's jobs move on after it */
  WORKER_LOCK_MS: Joi.number().integer().min(500).default(30_000),
  WORKER_STALLED_CHECK_MS: Joi.number().integer().min(500).default(30_000),
  /** an open job that has not moved for this long and has no queue entry is enqueued again */
  LOST_JOB_AFTER_MS: Joi.number().integer().min(1_000).default(30_000),
  /** how often the fleet (one worker per source and period) looks for such jobs */
  LOST_JOB_SWEEP_MS: Joi.number().integer().min(1_000).default(15_000),
  SANDBOX_PAGE_DELAY_MS: Joi.number().integer().min(0).max(60_000).default(50),
  GOOGLE_PLACES_API_KEY: Joi.string().optional(),
  GOOGLE_PLACES_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://places.googleapis.com'),
  GOOGLE_PLACES_RATE_PER_MIN: Joi.number().integer().min(1).default(600),
  PDL_API_KEY: Joi.string().optional(),
  PDL_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://api.peopledatalabs.com'),
  PDL_RATE_PER_MIN: Joi.number().integer().min(1).default(10),
  STORELEADS_API_KEY: Joi.string().optional(),
  STORELEADS_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://storeleads.app'),
  STORELEADS_RATE_PER_MIN: Joi.number().integer().min(1).default(60),
  ENRICHMENT_ALLOW_PRIVATE_NETWORKS: Joi.boolean().truthy('1').falsy('0').default(false),
  ENRICHMENT_TIMEOUT_MS: Joi.number().integer().min(100).default(8_000),
  ENRICHMENT_MAX_BYTES: Joi.number().integer().min(1024).default(1_048_576),
  ENRICHMENT_CONCURRENCY: Joi.number().integer().min(1).max(50).default(4),
  /** the crawler's User-Agent; printable ASCII, as a header value must be */
  ENRICHMENT_USER_AGENT: Joi.string().trim().min(1).max(300).pattern(/^[\x20-\x7e]+$/).optional(),
  ...WEBHOOK_VARIABLES,
};

/**
 * The crawler names itself and, when the deployment has a public address, where a site owner can
 * find who runs it. `LeadgenBot` is the product token robots.txt rules match.
 */
export function defaultEnrichmentUserAgent(publicBaseUrl: string | null): string {
  const where = publicBaseUrl === null ? 'self-hosted lead generation service' : `+${publicBaseUrl.replace(/\/+$/, '')}`;
  return `LeadgenBot/1.0 (${where}; reads public contact pages; honours robots.txt)`;
}

/** Names of every variable the service reads (for checks of manifests and docs against this schema). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(VARIABLES);

/** Each long-running process's operations port when OPS_PORT is unset: distinct, so both fit on one host. */
export const DEFAULT_OPS_PORTS = { api: 9464, worker: 9465 } as const;

/** The operations port a process listens on (0: none). */
export function opsPort(config: Config, process: keyof typeof DEFAULT_OPS_PORTS): number {
  return config.ops.port ?? DEFAULT_OPS_PORTS[process];
}

export interface Config {
  env: 'development' | 'production' | 'test';
  log: { level: string };
  http: { port: number; publicBaseUrl: string | null; bodyLimitBytes: number };
  database: { url: string; poolSize: number };
  redis: { url: string; queuePrefix: string };
  api: {
    syncWaitMs: number;
    idempotencyTtlHours: number;
    authCacheMs: number;
    rateLimit: { generatePerMin: number; readPerMin: number };
  };
  shutdownGraceMs: number;
  /** port null: the process uses its own default (DEFAULT_OPS_PORTS); 0: no operations listener */
  ops: { host: string; port: number | null };
  operatorPassword: string | null;
  /** Bull Board's write actions; false (the default): the board only shows */
  operatorBoardWritable: boolean;
  worker: {
    concurrency: number;
    sources: Source[];
    jobTimeoutMs: number;
    lockMs: number;
    stalledCheckMs: number;
    lostJobAfterMs: number;
    lostJobSweepMs: number;
  };
  sandbox: { pageDelayMs: number };
  providers: {
    googlePlaces: { apiKey: string | null; baseUrl: string; ratePerMin: number };
    peopleDataLabs: { apiKey: string | null; baseUrl: string; ratePerMin: number };
    storeLeads: { apiKey: string | null; baseUrl: string; ratePerMin: number };
  };
  enrichment: { allowPrivateNetworks: boolean; timeoutMs: number; maxBytes: number; concurrency: number; userAgent: string };
  /** webhook deliveries (decision 016); `deliver`: this worker consumes the webhook queue */
  webhooks: {
    deliver: boolean;
    allowPrivateNetworks: boolean;
    timeoutMs: number;
    retryScheduleMs: number[];
    disableAfterMs: number;
    concurrency: number;
    lostAfterMs: number;
    sweepMs: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

type Raw = Record<string, unknown>;

/** Each real provider's base URL and the key it needs. */
const PROVIDER_CREDENTIALS = [
  ['GOOGLE_PLACES_BASE_URL', 'GOOGLE_PLACES_API_KEY'],
  ['PDL_BASE_URL', 'PDL_API_KEY'],
  ['STORELEADS_BASE_URL', 'STORELEADS_API_KEY'],
] as const;

function parseSources(value: string, problems: string[]): Source[] {
  const names = value.split(',').map((s) => s.trim()).filter((n) => n && n !== WEBHOOK_WORKER_ENTRY);
  const unknown = names.filter((n) => !(SOURCES as readonly string[]).includes(n));
  if (unknown.length > 0 || (names.length === 0 && !deliversWebhooks(value))) {
    problems.push(`WORKER_SOURCES must list sources from ${SOURCES.join(', ')} or ${WEBHOOK_WORKER_ENTRY} (got "${value}")`);
    return [];
  }
  return [...new Set(names)] as Source[];
}

function deliversWebhooks(value: string): boolean {
  return value.split(',').some((s) => s.trim() === WEBHOOK_WORKER_ENTRY);
}

/** Reads the configuration from an environment (process.env by default); throws ConfigError listing every problem. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const known: Raw = {};
  for (const name of Object.keys(VARIABLES)) {
    const value = environment[name];
    // An empty variable counts as unset, as in most twelve-factor tooling.
    if (value !== undefined && value !== '') known[name] = value;
  }
  const { value, error } = Joi.object(VARIABLES).validate(known, { abortEarly: false, convert: true });
  const problems = (error?.details ?? []).map((d) => `${d.context?.key ?? d.path.join('.')}: ${d.message.replace(/^"[^"]+" /, '')}`);
  const v = value as Raw;
  const sources = parseSources(String(v.WORKER_SOURCES), problems);
  // Pointing a provider at an upstream without its key would silently run the sandbox instead:
  // a half-configured provider is a mistake, not a choice. (Keys alone use the real base URLs.)
  for (const [baseUrl, apiKey] of PROVIDER_CREDENTIALS) {
    if (known[baseUrl] !== undefined && known[apiKey] === undefined) problems.push(`${baseUrl} is set but ${apiKey} is not`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const str = (name: string) => (v[name] === undefined ? null : String(v[name]));
  const num = (name: string) => Number(v[name]);
  return {
    env: v.NODE_ENV as Config['env'],
    log: { level: String(v.LOG_LEVEL) },
    http: { port: num('PORT'), publicBaseUrl: str('PUBLIC_BASE_URL')?.replace(/\/+$/, '') ?? null, bodyLimitBytes: 16 * 1024 },
    database: { url: String(v.DATABASE_URL), poolSize: num('DATABASE_POOL_SIZE') },
    redis: { url: String(v.REDIS_URL), queuePrefix: String(v.QUEUE_PREFIX) },
    api: {
      syncWaitMs: num('SYNC_WAIT_MS'),
      idempotencyTtlHours: num('IDEMPOTENCY_TTL_HOURS'),
      authCacheMs: num('AUTH_CACHE_MS'),
      rateLimit: { generatePerMin: num('RATE_LIMIT_GENERATE_PER_MIN'), readPerMin: num('RATE_LIMIT_READ_PER_MIN') },
    },
    shutdownGraceMs: num('SHUTDOWN_GRACE_MS'),
    ops: { host: String(v.OPS_HOST), port: v.OPS_PORT === undefined ? null : num('OPS_PORT') },
    operatorPassword: str('OPERATOR_PASSWORD'),
    operatorBoardWritable: Boolean(v.OPERATOR_BOARD_WRITABLE),
    worker: {
      concurrency: num('WORKER_CONCURRENCY'),
      sources,
      jobTimeoutMs: num('JOB_TIMEOUT_MS'),
      lockMs: num('WORKER_LOCK_MS'),
      stalledCheckMs: num('WORKER_STALLED_CHECK_MS'),
      lostJobAfterMs: num('LOST_JOB_AFTER_MS'),
      lostJobSweepMs: num('LOST_JOB_SWEEP_MS'),
    },
    sandbox: { pageDelayMs: num('SANDBOX_PAGE_DELAY_MS') },
    providers: {
      googlePlaces: { apiKey: str('GOOGLE_PLACES_API_KEY'), baseUrl: String(v.GOOGLE_PLACES_BASE_URL), ratePerMin: num('GOOGLE_PLACES_RATE_PER_MIN') },
      peopleDataLabs: { apiKey: str('PDL_API_KEY'), baseUrl: String(v.PDL_BASE_URL), ratePerMin: num('PDL_RATE_PER_MIN') },
      storeLeads: { apiKey: str('STORELEADS_API_KEY'), baseUrl: String(v.STORELEADS_BASE_URL), ratePerMin: num('STORELEADS_RATE_PER_MIN') },
    },
    enrichment: {
      allowPrivateNetworks: Boolean(v.ENRICHMENT_ALLOW_PRIVATE_NETWORKS),
      timeoutMs: num('ENRICHMENT_TIMEOUT_MS'),
      maxBytes: num('ENRICHMENT_MAX_BYTES'),
      concurrency: num('ENRICHMENT_CONCURRENCY'),
      userAgent: str('ENRICHMENT_USER_AGENT') ?? defaultEnrichmentUserAgent(str('PUBLIC_BASE_URL')),
    },
    webhooks: {
      deliver: deliversWebhooks(String(v.WORKER_SOURCES)),
      allowPrivateNetworks: Boolean(v.WEBHOOK_ALLOW_PRIVATE_NETWORKS),
      timeoutMs: num('WEBHOOK_TIMEOUT_MS'),
      retryScheduleMs: parseRetrySchedule(String(v.WEBHOOK_RETRY_SCHEDULE)),
      disableAfterMs: num('WEBHOOK_DISABLE_AFTER_MS'),
      concurrency: num('WEBHOOK_CONCURRENCY'),
      lostAfterMs: num('WEBHOOK_LOST_AFTER_MS'),
      sweepMs: num('WEBHOOK_SWEEP_MS'),
    },
  };
}

/** For a process's entry point: the configuration, or one clear line on stderr and exit code 78 (EX_CONFIG). */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

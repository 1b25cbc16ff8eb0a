import Joi from 'joi';
import { SOURCES, type Source } from '@leadgen/domain';
import { LOG_LEVELS, type LogLevel } from '@leadgen/logger';
import { flag, optional, readingOf, variable, Variable, variablesOf, type Resolved } from './variable';

/** Each long-running process's operations port when OPS_PORT is unset: distinct, so both fit on one host. */
export const DEFAULT_OPS_PORTS = { api: 9464, worker: 9465 } as const;

const ENVIRONMENTS = ['development', 'production', 'test'] as const;

/**
 * The crawler names itself and, when the deployment has a public address, where a site owner can
 * find who runs it. `LeadgenBot` is the product token robots.txt rules match.
 */
export function defaultEnrichmentUserAgent(publicBaseUrl: string | null): string {
  const where = publicBaseUrl === null ? 'self-hosted lead generation service' : `+${publicBaseUrl.replace(/\/+$/, '')}`;
  return `LeadgenBot/1.0 (${where}; reads public contact pages; honours robots.txt)`;
}

const integer = () => Joi.number().integer();

/** The WORKER_SOURCES entry that makes a worker deliver webhooks (decision 016); the rest are sources. */
export const WEBHOOK_WORKER_ENTRY = 'webhooks';
const WORKER_QUEUES: readonly string[] = [...SOURCES, WEBHOOK_WORKER_ENTRY];
const listedQueues = (validated: unknown) => validated as string[];

// `5s,5m,30m,2h`: a list of durations, read as milliseconds.
const DURATION = /^(\d+)(ms|s|m|h)?$/;
const DURATION_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const durations = () =>
  Joi.string<number[]>().custom((value: string, helpers) => {
    const parts = value.split(',').map((part) => DURATION.exec(part.trim()));
    if (parts.some((p) => p === null)) return helpers.message({ custom: '{{#label}} must be durations like `5s,5m,30m,2h` (got "{{#value}}")' });
    return parts.map((p) => Number(p![1]) * (DURATION_MS[p![2] ?? 'ms'] ?? 1));
  });
const httpUrl = () => Joi.string().uri({ scheme: ['http', 'https'] });

/** A real upstream: its key (unset, the sandbox serves the source), its address, and the fleet's share of its quota. */
function upstream(prefix: string, serves: string, baseUrl: string, ratePerMin: number) {
  const apiKey = `${prefix}_API_KEY`;
  return {
    apiKey: optional(apiKey, Joi.string(), `${serves}; unset: the sandbox`),
    // Pointing an adapter at an upstream without its key would silently run the sandbox instead.
    baseUrl: variable(`${prefix}_BASE_URL`, httpUrl().default(baseUrl), `where \`${apiKey}\` is sent (a proxy, a fake); refused without it`, { requires: apiKey }),
    ratePerMin: variable(`${prefix}_RATE_PER_MIN`, integer().min(1).default(ratePerMin), 'requests per minute to it, shared by every worker'),
  };
}

/**
 * Every environment variable the service reads, declared once, in the grouped shape the code reads
 * (`config.redis.url`): rule, default, and the README's words (`npm run docs:config` writes its
 * table). Adding a variable is adding it here. Defaults suit a laptop.
 */
export const DECLARATION = {
  database: {
    url: variable('DATABASE_URL', Joi.string().uri({ scheme: ['postgres', 'postgresql'] }).default('postgresql://postgres@127.0.0.1:5432/leadgen'), 'PostgreSQL (the source of truth)'),
    // A job borrows a connection for a statement, not for its life.
    poolSize: variable('DATABASE_POOL_SIZE', integer().min(1).max(500).default(10), 'PostgreSQL connections per process (1–500), whatever the concurrency'),
  },
  redis: {
    url: variable('REDIS_URL', Joi.string().uri({ scheme: ['redis', 'rediss'] }).default('redis://127.0.0.1:6379'), 'Redis (queues, events, rate-limit counters)'),
    queuePrefix: variable('QUEUE_PREFIX', Joi.string().pattern(/^[A-Za-z0-9_:-]+$/).default('leadgen'), 'Redis key prefix, to share one Redis between deployments'),
  },
  http: {
    port: variable('PORT', integer().min(0).max(65535).default(3000), 'API port'),
    publicBaseUrl: optional('PUBLIC_BASE_URL', httpUrl().replace(/\/+$/, ''), 'absolute base for `pollUrl` and `Location` (relative paths when unset)'),
    bodyLimitBytes: 16 * 1024,
  },
  env: variable('NODE_ENV', Joi.string<(typeof ENVIRONMENTS)[number]>().valid(...ENVIRONMENTS).default('development'), '`production` skips the sandbox account bootstrap of `npm start`'),
  log: {
    level: variable(
      'LOG_LEVEL',
      Joi.string<LogLevel>().valid(...LOG_LEVELS).default('info'),
      '`error`, `warn`, `info` (one line per request, job events), `http`, `debug` (adds probe requests) or `silent`',
    ),
  },
  api: {
    syncWaitMs: variable('SYNC_WAIT_MS', integer().min(0).max(60_000).default(10_000), 'how long a generate call waits before answering 202'),
    authCacheMs: variable(
      'AUTH_CACHE_MS',
      integer().min(0).max(60_000).default(5_000),
      "how long an API process keeps a live key's account in memory (0 turns it off): a revoked key stops working within this; an expiry is honoured at once",
    ),
    idempotencyTtlHours: variable('IDEMPOTENCY_TTL_HOURS', integer().min(1).max(24 * 30).default(24), 'how long an Idempotency-Key is remembered'),
    rateLimit: {
      generatePerMin: variable('RATE_LIMIT_GENERATE_PER_MIN', integer().min(1).default(120), 'generate calls per account per minute'),
      readPerMin: variable('RATE_LIMIT_READ_PER_MIN', integer().min(1).default(1200), 'poll, cancel, listing, export and account calls per account per minute'),
    },
  },
  shutdownGraceMs: variable('SHUTDOWN_GRACE_MS', integer().min(0).default(25_000), 'on SIGTERM: time to drain requests / finish jobs before handing them back'),
  ops: {
    // null: the process's own default (opsPort); 0: no operations listener.
    port: optional(
      'OPS_PORT',
      integer().min(0).max(65535),
      'operations port: `GET /healthz`, `GET /readyz`, `GET /metrics`; `0` turns it off (two workers on one host need two ports, or none)',
      { shownDefault: `api \`${DEFAULT_OPS_PORTS.api}\`, worker \`${DEFAULT_OPS_PORTS.worker}\`` },
    ),
    // The image sets 0.0.0.0 so probes from outside the container reach it.
    host: variable('OPS_HOST', Joi.string().hostname().default('127.0.0.1'), 'address the operations port listens on', { shownDefault: '`127.0.0.1` (`0.0.0.0` in the image)' }),
  },
  operatorPassword: optional('OPERATOR_PASSWORD', Joi.string().min(12), 'enables Bull Board at `/admin/queues` (HTTP Basic, user `operator`), 12+ characters'),
  operatorBoardWritable: flag('OPERATOR_BOARD_WRITABLE', "`1` enables the board's write actions (see [Bull Board](#bull-board)); by default it only shows"),
  worker: {
    sources: new Variable(
      'WORKER_SOURCES',
      // custom() makes the comma-separated list the array of queue names the worker reads.
      Joi.string()
        .custom((value: string, helpers) => {
          const names = value.split(',').map((s) => s.trim()).filter(Boolean);
          if (names.length === 0 || names.some((n) => !WORKER_QUEUES.includes(n))) {
            return helpers.message({ custom: `{{#label}} must list sources from ${SOURCES.join(', ')} or ${WEBHOOK_WORKER_ENTRY} (got "{{#value}}")` });
          }
          return [...new Set(names)];
        })
        .default(() => [...WORKER_QUEUES]),
      'which queues this worker serves: sources, and `webhooks` for webhook deliveries ([decision 016](docs/decisions/016-webhooks.md))',
      { shownDefault: `\`${WORKER_QUEUES.join(',')}\`` },
      (validated) => listedQueues(validated).filter((n): n is Source => (SOURCES as readonly string[]).includes(n)),
    ),
    concurrency: variable(
      'WORKER_CONCURRENCY',
      integer().min(1).max(10_000).default(5),
      'jobs at once per source per worker process (1–10000; I/O-bound sources hold no connection while they wait)',
    ),
    jobTimeoutMs: variable('JOB_TIMEOUT_MS', integer().min(100).default(300_000), "a job's whole time budget, across retries and resumptions"),
    lockMs: variable('WORKER_LOCK_MS', integer().min(500).default(30_000), 'how long a silent worker keeps its jobs before another takes them over'),
    stalledCheckMs: variable('WORKER_STALLED_CHECK_MS', integer().min(500).default(30_000), 'how often workers look for jobs whose worker died'),
    lostJobAfterMs: variable(
      'LOST_JOB_AFTER_MS',
      integer().min(1_000).default(30_000),
      'an open job that has not moved for this long and has no queue entry (Redis lost it) is enqueued again',
    ),
    lostJobSweepMs: variable('LOST_JOB_SWEEP_MS', integer().min(1_000).default(15_000), 'how often the fleet looks for such jobs (one worker per source and period)'),
  },
  sandbox: {
    pageDelayMs: variable('SANDBOX_PAGE_DELAY_MS', integer().min(0).max(60_000).default(50), 'sandbox latency per page of 10 leads'),
  },
  providers: {
    googlePlaces: upstream('GOOGLE_PLACES', 'google_maps through Places API (New) Text Search', 'https://places.googleapis.com', 600),
    peopleDataLabs: upstream('PDL', "linkedin through People Data Labs Person Search (and shopify's people lookup)", 'https://api.peopledatalabs.com', 10),
    storeLeads: upstream('STORELEADS', 'shopify through Store Leads', 'https://storeleads.app', 60),
  },
  enrichment: {
    timeoutMs: variable('ENRICHMENT_TIMEOUT_MS', integer().min(100).default(8_000), 'website enrichment: time per site'),
    maxBytes: variable('ENRICHMENT_MAX_BYTES', integer().min(1024).default(1_048_576), 'website enrichment: bytes read per page'),
    concurrency: variable('ENRICHMENT_CONCURRENCY', integer().min(1).max(50).default(4), 'website enrichment: sites at once'),
    allowPrivateNetworks: flag('ENRICHMENT_ALLOW_PRIVATE_NETWORKS', 'let enrichment reach private/loopback addresses (tests only)'),
    userAgent: variable(
      'ENRICHMENT_USER_AGENT',
      // Printable ASCII, as a header value must be.
      Joi.string()
        .trim()
        .min(1)
        .max(300)
        .pattern(/^[\x20-\x7e]+$/)
        .default((given: Record<string, unknown>) => defaultEnrichmentUserAgent(typeof given.PUBLIC_BASE_URL === 'string' ? given.PUBLIC_BASE_URL : null)),
      "the crawler's User-Agent; set it to name your deployment and a page or address where site owners can reach you (robots.txt rules for `LeadgenBot` apply to the default)",
      { shownDefault: '`LeadgenBot/1.0 (+<PUBLIC_BASE_URL>; reads public contact pages; honours robots.txt)`' },
    ),
  },
  webhooks: {
    deliver: readingOf('WORKER_SOURCES', (validated) => listedQueues(validated).includes(WEBHOOK_WORKER_ENTRY)),
    allowPrivateNetworks: flag('WEBHOOK_ALLOW_PRIVATE_NETWORKS', '`1`: webhook targets may be loopback or private addresses, any port, and plain `http` (tests, a closed network)'),
    timeoutMs: variable('WEBHOOK_TIMEOUT_MS', integer().min(100).max(60_000).default(15_000), 'an attempt that has not answered 2xx within this is a failure'),
    retryScheduleMs: variable(
      'WEBHOOK_RETRY_SCHEDULE',
      durations().default(() => [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]),
      "waits between a delivery's attempts (each ±20 % jitter; units `ms`, `s`, `m`, `h`); its length is the number of retries",
      { shownDefault: '`5s,5m,30m,2h,5h,10h,10h`' },
    ),
    disableAfterMs: variable('WEBHOOK_DISABLE_AFTER_MS', integer().min(1_000).default(3 * 24 * 3_600_000), 'an endpoint whose every attempt failed for this long is disabled (reason `failing`)', {
      shownDefault: '`259200000` (3 days)',
    }),
    concurrency: variable('WEBHOOK_CONCURRENCY', integer().min(1).max(1_000).default(10), "deliveries at once per worker process, apart from the lead jobs' slots"),
    lostAfterMs: variable('WEBHOOK_LOST_AFTER_MS', integer().min(1_000).default(30_000), 'a pending delivery this far past its due time and without a queue entry is enqueued again'),
    sweepMs: variable('WEBHOOK_SWEEP_MS', integer().min(1_000).default(15_000), 'how often the fleet (one worker per period) looks for such deliveries'),
  },
};

/** The configuration every process reads: validated, typed and grouped (`config.redis.url`). */
export type Config = Resolved<typeof DECLARATION>;

/** Every variable, in the README's order. */
export const VARIABLES = variablesOf(DECLARATION);

/** Names of every variable the service reads (for checks of manifests and docs against the declaration). */
export const CONFIG_VARIABLES: readonly string[] = VARIABLES.map((v) => v.name);

/** The operations port a process listens on (0: none). */
export function opsPort(config: Config, process: keyof typeof DEFAULT_OPS_PORTS): number {
  return config.ops.port ?? DEFAULT_OPS_PORTS[process];
}

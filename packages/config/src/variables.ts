import { isIP } from 'node:net';
import Joi from 'joi';
import { SOURCES, type Source } from '@leadgen/domain';
import { LOG_LEVELS, type LogLevel } from '@leadgen/logger';
import { flag, optional, readingOf, variable, Variable, variablesOf, type Reader, type Resolved } from './variable';
import { parsePostgresUrl } from './postgres-url';

/** Each long-running process's operations port when OPS_PORT is unset: distinct, so both fit on one host. */
/** The JSON body limit of every route that declares no other (the OpenAPI document says it too). */
export const JSON_BODY_LIMIT_BYTES = 16 * 1024;

export const DEFAULT_OPS_PORTS = { api: 9464, worker: 9465 } as const;

const ENVIRONMENTS = ['development', 'production', 'test'] as const;

/** Switches that open the service up (an SSRF surface, queue writes from a browser): refused in production unless acknowledged. */
export const UNSAFE_IN_PRODUCTION = [
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'ENRICHMENT_ALLOW_PRIVATE_NETWORKS',
  'OPERATOR_BOARD_WRITABLE',
] as const;
const UNSAFE_LIST = UNSAFE_IN_PRODUCTION.map((name) => `\`${name}\``).join(', ');

/**
 * The crawler names itself and, when the deployment has a public address, where a site owner can
 * find who runs it. `LeadgenBot` is the product token robots.txt rules match.
 */
export function defaultEnrichmentUserAgent(publicBaseUrl: string | null): string {
  const where = publicBaseUrl === null ? 'self-hosted lead generation service' : `+${publicBaseUrl.replace(/\/+$/, '')}`;
  return `LeadgenBot/1.0 (${where}; reads public contact pages; honours robots.txt)`;
}

const integer = () => Joi.number().integer();

/**
 * WEBHOOK_CONCURRENCY_PER_ACCOUNT when unset: half of a process's webhook slots (at least one), so one
 * account whose targets never answer leaves the other half of every process's slots to the others.
 */
export function defaultWebhookConcurrencyPerAccount(webhookConcurrency: number): number {
  return Math.max(1, Math.floor((Number.isFinite(webhookConcurrency) ? webhookConcurrency : 10) / 2));
}

// TRUST_PROXY: a hop count, or a list of addresses, CIDRs and Express's names for ranges; what Express's
// `trust proxy` takes, checked here so a typo stops the start instead of trusting nobody (or everybody).
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

// CORS_ALLOWED_ORIGINS: browser origins (scheme, host, port; no path) that may call /api/v1 (decision 036).
// Joi types a custom string as a string; this one converts to the list of origins.
const corsOrigins = () =>
  Joi.string().custom((value: string, helpers) => {
    const entries = value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    const bad = entries.filter((entry) => {
      try {
        const url = new URL(entry);
        return !['http:', 'https:'].includes(url.protocol) || url.origin !== entry.replace(/\/$/, '');
      } catch {
        return true;
      }
    });
    if (bad.length > 0)
      return helpers.message({
        custom: `{{#label}} must list origins such as https://app.example.com (scheme, host and port, no path), comma-separated (got "${bad.join(', ')}")`,
      });
    return entries.map((entry) => new URL(entry).origin);
  }) as unknown as Joi.Schema<string[]>;
const trustProxy = () =>
  Joi.alternatives<false | number | string[]>().try(
    Joi.number().integer().min(1).max(20),
    Joi.string().custom((value: string, helpers) => {
      if (/^(false|0|none)$/i.test(value.trim())) return false;
      const entries = value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
      const bad = entries.filter((entry) => {
        if (PROXY_RANGES.includes(entry)) return false;
        const [address, bits, ...rest] = entry.split('/');
        const family = isIP(address ?? '');
        if (family === 0 || rest.length > 0) return true;
        return bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
      });
      if (entries.length === 0 || bad.length > 0) {
        return helpers.message({
          custom: `{{#label}} must be a hop count or addresses/CIDRs (or ${PROXY_RANGES.join(', ')}), comma-separated (got "${bad.join(', ') || value}")`,
        });
      }
      return entries;
    }),
  );

/** The WORKER_QUEUES entry that makes a worker deliver webhooks (decision 016); the rest are sources. */
export const WEBHOOK_WORKER_ENTRY = 'webhooks';
const WORKER_QUEUES: readonly string[] = [...SOURCES, WEBHOOK_WORKER_ENTRY];
const listedQueues = (validated: unknown) => validated as string[];

// `5s,5m,30m,2h`: a list of durations, read as milliseconds.
const DURATION = /^(\d+)(ms|s|m|h)?$/;
const DURATION_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const durations = () =>
  Joi.string<number[]>().custom((value: string, helpers) => {
    const parts = value.split(',').map((part) => DURATION.exec(part.trim()));
    if (parts.some((p) => p === null))
      return helpers.message({ custom: '{{#label}} must be durations like `5s,5m,30m,2h` (got "{{#value}}")' });
    return parts.map((p) => Number(p![1]) * (DURATION_MS[p![2] ?? 'ms'] ?? 1));
  });
// `host:port,host:port`: Redis nodes or sentinels, read as a list.
const HOST_PORT = /^\[?([A-Za-z0-9.:-]+?)\]?:(\d{1,5})$/;
const hostPorts = () =>
  Joi.string<Array<{ host: string; port: number }>>().custom((value: string, helpers) => {
    const parts = value.split(',').map((part) => HOST_PORT.exec(part.trim()));
    if (parts.some((p) => p === null || Number(p[2]) > 65535))
      return helpers.message({ custom: '{{#label}} must be `host:port` pairs separated by commas (got "{{#value}}")' });
    return parts.map((p) => ({ host: p![1]!, port: Number(p![2]) }));
  });
// A PostgreSQL URL, with one host or several (libpq's `h1:p1,h2:p2` and target_session_attrs): kept as given.
const postgresUrl = () =>
  Joi.string().custom((value: string, helpers) => {
    try {
      parsePostgresUrl(value);
      return value;
    } catch (error) {
      return helpers.message({ custom: `{{#label}} ${(error as Error).message}` });
    }
  });
const httpUrl = () => Joi.string().uri({ scheme: ['http', 'https'] });

// `KEY[,OLDER_KEY...]`: base64 keys of 32 bytes, newest first, read as Buffers.
const secretKeys = () =>
  Joi.string<Buffer[]>().custom((value: string, helpers) => {
    const keys = value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    const decoded = keys.map((k) => (/^[A-Za-z0-9+/_-]+={0,2}$/.test(k) ? Buffer.from(k, 'base64') : Buffer.alloc(0)));
    if (keys.length === 0 || decoded.some((k) => k.length !== 32))
      return helpers.message({ custom: '{{#label}} must be base64 keys of 32 bytes, comma-separated, newest first' });
    return decoded;
  });

// Who reads each credential: Kubernetes passes a secret variable only to these processes (each
// Deployment's list is written from here by `npm run deploy:kubernetes`; decision 026).
const DATABASE_READERS: readonly Reader[] = ['api', 'migrate', 'admin', 'worker'];
// The migrations touch PostgreSQL only.
const REDIS_READERS: readonly Reader[] = ['api', 'admin', 'worker'];
// The workers whose leads carry addresses to verify (the mailbox engines' credentials).
const VERIFYING_WORKERS: readonly Reader[] = ['worker:google_maps', 'worker:linkedin', 'worker:shopify'];

/**
 * A real upstream: its key (unset, the sandbox serves the source), its address, and the fleet's share
 * of its quota. `readBy`: the processes that call it (or look at whether its key is set).
 */
function upstream(prefix: string, serves: string, baseUrl: string, ratePerMin: number, readBy: readonly Reader[]) {
  const apiKey = `${prefix}_API_KEY`;
  return {
    apiKey: optional(apiKey, Joi.string(), `${serves}; unset: the sandbox`, { secret: 'optional', readBy }),
    // Pointing an adapter at an upstream without its key would silently run the sandbox instead.
    baseUrl: variable(
      `${prefix}_BASE_URL`,
      httpUrl().default(baseUrl),
      `where \`${apiKey}\` is sent (a proxy, a fake); refused without it`,
      { requires: apiKey },
    ),
    ratePerMin: variable(
      `${prefix}_RATE_PER_MIN`,
      integer().min(1).default(ratePerMin),
      'requests per minute to it, shared by every worker',
    ),
  };
}

/**
 * Every environment variable the service reads, declared once, in the grouped shape the code reads
 * (`config.redis.url`): rule, default, and docs/configuration.md's words (`npm run docs:config` writes its
 * table). Adding a variable is adding it here. Defaults suit a laptop.
 */
export const DECLARATION = {
  database: {
    url: variable(
      'DATABASE_URL',
      postgresUrl().default('postgresql://postgres@127.0.0.1:5432/leadgen'),
      'PostgreSQL (the source of truth). Several hosts as libpq reads them (`postgresql://user:pass@db-a:5432,db-b:5432/leadgen?target_session_attrs=read-write`): each process connects to the first that takes writes, and looks again when it stops answering (a failover; [decision 045](decisions/045-postgresql-failover.md))',
      { secret: 'required', readBy: DATABASE_READERS },
    ),
    // Least privilege (decision 035): the processes connect as a role that cannot TRUNCATE or change a table.
    ownerUrl: optional(
      'DATABASE_OWNER_URL',
      postgresUrl(),
      "the tables' owner, for `db:migrate` only: it migrates as this role and grants `DATABASE_URL`'s user (created if missing) only what the processes need. Unset: it migrates as `DATABASE_URL` (one role for everything, as on a laptop)",
      { secret: 'optional', readBy: ['migrate'] },
    ),
    // Read replicas (decision 047): listings, exports and the operator board's reads; never writes, nor what must read them.
    readUrl: optional(
      'DATABASE_READ_URL',
      postgresUrl(),
      "a streaming replica of `DATABASE_URL` for the API's reads that may be slightly old: listings, CSV/NDJSON exports, the operator board (never a job's GET, idempotency, keys or credits). Several hosts as libpq reads them (`…?target_session_attrs=prefer-standby`). Its pool is `DATABASE_POOL_SIZE` connections too. Unset: everything reads the primary ([decision 047](decisions/047-read-replicas.md))",
      { secret: 'optional', readBy: ['api'] },
    ),
    readMaxLagMs: variable(
      'DATABASE_READ_MAX_LAG_MS',
      integer().min(0).max(3_600_000).default(5_000),
      "the most a read from `DATABASE_READ_URL` may lag the primary: the replica's lag is measured at most once a second, and while it is more (or unknown: the replica down), reads go to the primary",
      { readBy: ['api'] },
    ),
    // A job borrows a connection for a statement, not for its life.
    poolSize: variable(
      'DATABASE_POOL_SIZE',
      integer().min(1).max(500).default(10),
      'PostgreSQL connections per process (1–500), whatever the concurrency',
    ),
    // Bounds on every statement of the runtime role (decision 043): set as the role's defaults in its database by
    // db:migrate (prisma/functions/runtime_role_timeouts.sql), so they hold behind PgBouncer too.
    statementTimeoutMs: variable(
      'DATABASE_STATEMENT_TIMEOUT_MS',
      integer().min(0).max(3_600_000).default(30_000),
      "the longest statement of `DATABASE_URL`'s role (0: none); set by `db:migrate` as the role's default in the database",
      { readBy: ['migrate'] },
    ),
    lockTimeoutMs: variable(
      'DATABASE_LOCK_TIMEOUT_MS',
      integer().min(0).max(600_000).default(10_000),
      "the longest wait of `DATABASE_URL`'s role for a lock (0: none); set by `db:migrate`",
      { readBy: ['migrate'] },
    ),
    idleInTransactionTimeoutMs: variable(
      'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
      integer().min(0).max(3_600_000).default(60_000),
      "how long a session of `DATABASE_URL`'s role may sit idle inside a transaction before PostgreSQL ends it (0: never); set by `db:migrate`",
      { readBy: ['migrate'] },
    ),
  },
  redis: {
    url: variable(
      'REDIS_URL',
      Joi.string()
        .uri({ scheme: ['redis', 'rediss'] })
        .default('redis://127.0.0.1:6379'),
      'one Redis node (queues, events, rate-limit counters); `rediss://` for TLS. Unused with `REDIS_CLUSTER_NODES` or `REDIS_SENTINELS`',
      { secret: 'optional', readBy: REDIS_READERS },
    ),
    clusterNodes: optional(
      'REDIS_CLUSTER_NODES',
      hostPorts(),
      'Redis Cluster: some of its nodes, `host:port,host:port` (the rest are discovered); each queue keeps its keys in one hash slot',
    ),
    sentinels: optional(
      'REDIS_SENTINELS',
      hostPorts(),
      'Redis Sentinel: the sentinels, `host:port,host:port`; they name the primary to use',
      {
        conflicts: 'REDIS_CLUSTER_NODES',
      },
    ),
    sentinelName: variable('REDIS_SENTINEL_NAME', Joi.string().default('mymaster'), 'the primary group the sentinels monitor', {
      requires: 'REDIS_SENTINELS',
    }),
    sentinelPassword: optional('REDIS_SENTINEL_PASSWORD', Joi.string(), "the sentinels' own password (unset: none)", {
      requires: 'REDIS_SENTINELS',
      secret: 'optional',
      readBy: REDIS_READERS,
    }),
    username: optional(
      'REDIS_USERNAME',
      Joi.string(),
      'ACL user of the cluster nodes or the sentinel-managed primary (a single node takes it in `REDIS_URL`)',
    ),
    password: optional(
      'REDIS_PASSWORD',
      Joi.string(),
      'password of the cluster nodes or the sentinel-managed primary (a single node takes it in `REDIS_URL`)',
      { secret: 'optional', readBy: REDIS_READERS },
    ),
    tls: flag('REDIS_TLS', 'TLS to a cluster or to the sentinels and their primary (a single node: `rediss://`)'),
    tlsCa: optional('REDIS_TLS_CA', Joi.string(), 'PEM file of the CA that signed the Redis certificates (unset: the system store)'),
    tlsCert: optional('REDIS_TLS_CERT', Joi.string(), 'PEM file of a client certificate, for Redis that asks for one', {
      requires: 'REDIS_TLS_KEY',
    }),
    tlsKey: optional('REDIS_TLS_KEY', Joi.string(), "PEM file of the client certificate's key", { requires: 'REDIS_TLS_CERT' }),
    tlsServername: optional(
      'REDIS_TLS_SERVERNAME',
      Joi.string().hostname(),
      'the name the Redis certificates carry, when the nodes are reached by address (a cluster announces addresses)',
    ),
    queuePrefix: variable(
      'QUEUE_PREFIX',
      Joi.string()
        .pattern(/^[A-Za-z0-9_:{}-]+$/)
        .pattern(/^[^{}]*(\{[^{}]+\}[^{}]*)?$/, 'at most one hash tag')
        .default('leadgen'),
      'Redis key prefix, to share one Redis between deployments; a `{hash tag}` in it puts every key in one slot of a cluster',
    ),
    queueShards: variable(
      'QUEUE_SHARDS',
      integer().min(1).max(64).default(1),
      "BullMQ queues per source: an account's jobs go to one of them by a hash of its id, each with a hash tag of its own, so a Redis Cluster spreads a source's load over its nodes; workers take from all of a source's. 1: one queue per source, named as ever. Same value in every API and worker process; lowering it strands what waits in the dropped queues until the lost-job sweep enqueues it again ([decision 048](decisions/048-a-source-queue-across-redis-nodes.md))",
    ),
  },
  http: {
    port: variable('PORT', integer().min(0).max(65535).default(3000), 'API port'),
    publicBaseUrl: optional(
      'PUBLIC_BASE_URL',
      httpUrl().replace(/\/+$/, ''),
      "absolute base for `pollUrl` and `Location`, of each lead notice's `objectionUrl` and of the link an email objection mails. Required in production (the API and the workers), where a lead's notice must say where its person objects; unset elsewhere: relative paths, a null `objectionUrl`, no link mailed",
      { readBy: ['api', 'worker'], requiredInProduction: true },
    ),
    bodyLimitBytes: JSON_BODY_LIMIT_BYTES,
    corsAllowedOrigins: variable(
      'CORS_ALLOWED_ORIGINS',
      corsOrigins().default([]),
      'browser origins allowed to call `/api/v1` across origins (CORS), comma-separated (`https://app.example.com,https://admin.example.com`): their preflights are answered and their answers readable; never the operator board. Unset: none, a browser page elsewhere cannot call the API (docs/api.md, "Browsers and CORS")',
      { shownDefault: '— (none)' },
    ),
    trustProxy: variable(
      'TRUST_PROXY',
      trustProxy().default(false),
      'proxies in front of the API whose `X-Forwarded-For` is believed (Express `trust proxy`): a hop count (`1`: one ingress), or addresses and CIDRs, comma-separated (`10.0.0.0/8,loopback`); the client address it yields keys the login throttle and the logs. Unset: none, the peer address is the client',
      { shownDefault: '— (none)' },
    ),
  },
  env: variable(
    'NODE_ENV',
    Joi.string<(typeof ENVIRONMENTS)[number]>()
      .valid(...ENVIRONMENTS)
      .default('development'),
    '`production` skips the sandbox account bootstrap of `npm start`, and refuses to start the API or a worker while the sandbox serves a source (see `SANDBOX_IN_PRODUCTION`)',
  ),
  leads: {
    retentionDays: optional(
      'LEAD_RETENTION_DAYS',
      integer().min(1).max(36_500),
      "days a finished job's leads are kept: then the workers' hourly sweep deletes them (the job, its counts and its charge stay; its leads answer 410 `leads_expired`). Unset: kept as long as the job",
      { shownDefault: '— (kept forever)' },
    ),
  },
  audit: {
    retentionDays: variable(
      'AUDIT_RETENTION_DAYS',
      integer().min(1).max(36_500).default(400),
      'days an audit event is kept (GET /api/v1/audit-events, `admin audit:show`), then purged hourly',
    ),
  },
  objections: {
    mailUrl: optional(
      'MAIL_URL',
      Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
      'the SMTP relay that sends objection confirmation links, `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`; unset: email objections are answered as usual but no mail goes out (a warning says so)',
      { secret: 'optional', readBy: ['api'] },
    ),
    fromAddress: variable(
      'MAIL_FROM_ADDRESS',
      Joi.string().email({ tlds: false }).default('privacy@localhost'),
      'the sender address of confirmation mails (set it with `MAIL_URL`: a relay refuses senders it does not know)',
      { readBy: ['api'] },
    ),
    fromName: variable(
      'MAIL_FROM_NAME',
      Joi.string()
        .trim()
        .min(1)
        .max(100)
        .pattern(/^[^\r\n<>"]+$/)
        .default('Privacy'),
      'the sender name of confirmation mails',
      { readBy: ['api'] },
    ),
    linkTtlHours: variable(
      'OBJECTION_LINK_TTL_HOURS',
      integer().min(1).max(168).default(24),
      "hours an objection's confirmation link (email) or token (domain) stays valid",
      { readBy: ['api', 'admin'] },
    ),
    noticeDays: variable(
      'OBJECTION_NOTICE_DAYS',
      integer().min(1).max(36_500).default(400),
      'a confirmed objection is sent (`subject.objected`) to every account that received the subject in a job created this many days back',
      { readBy: ['worker', 'api'] },
    ),
    noticeRetentionDays: variable(
      'OBJECTION_NOTICE_RETENTION_DAYS',
      integer().min(1).max(36_500).default(90),
      "days an account's objection notices stay in its feed (`GET /api/v1/privacy/objections`) before a worker deletes them; the subject stays on the global suppression list",
      { readBy: ['worker'] },
    ),
    wellKnownPort: variable(
      'OBJECTION_WELL_KNOWN_PORT',
      integer().min(1).max(65_535).default(80),
      "the port a domain's `/.well-known/` proof is read from over http (80, as certificate authorities do; another value for tests only: production always reads 80)",
      { readBy: ['api'] },
    ),
  },
  secrets: {
    encryptionKeys: optional(
      'SECRETS_ENCRYPTION_KEY',
      secretKeys(),
      'base64 AES-256 keys (32 bytes) that seal webhook secrets at rest, comma-separated, newest first (the first seals, each opens; `npm run admin -- secrets:rotate` re-seals under the first); required in production by the processes that seal or open them (the API, workers that deliver webhooks, the migrations, the admin CLI), unset elsewhere the [development key](data-protection.md#secrets-at-rest)',
      // The processes that seal or open webhook secrets. A production process among them refuses to start
      // without it (it would seal with the published development key); the source workers never hold it.
      { secret: 'optional', readBy: ['api', 'migrate', 'admin', 'worker:webhooks'], requiredInProduction: true },
    ),
  },
  log: {
    level: variable(
      'LOG_LEVEL',
      Joi.string<LogLevel>()
        .valid(...LOG_LEVELS)
        .default('info'),
      '`error`, `warn`, `info` (one line per request, job events), `http`, `debug` (adds probe requests) or `silent`',
    ),
  },
  api: {
    syncWaitMs: variable(
      'SYNC_WAIT_MS',
      integer().min(0).max(60_000).default(10_000),
      'how long a generate call waits before answering 202',
    ),
    authCacheMs: variable(
      'AUTH_CACHE_MS',
      integer().min(0).max(60_000).default(5_000),
      "how long an API process keeps a live key's account in memory (0 turns it off): a revocation and an expiry are honoured from the next request on regardless",
    ),
    suppressionsPerAccount: variable(
      'SUPPRESSIONS_MAX_PER_ACCOUNT',
      integer().min(1).default(1_000_000),
      "entries one account's suppression list may hold; an upload that would go past it answers 409 `suppression_limit`",
    ),
    idempotencyTtlHours: variable(
      'IDEMPOTENCY_TTL_HOURS',
      integer()
        .min(1)
        .max(24 * 30)
        .default(24),
      'how long an Idempotency-Key is remembered',
    ),
    rateLimit: {
      generatePerMin: variable('RATE_LIMIT_GENERATE_PER_MIN', integer().min(1).default(120), 'generate calls per account per minute'),
      readPerMin: variable(
        'RATE_LIMIT_READ_PER_MIN',
        integer().min(1).default(1200),
        'poll, cancel, listing, export and account calls per account per minute',
      ),
      exportsAtOnce: variable(
        'EXPORTS_PER_ACCOUNT_AT_ONCE',
        integer().min(1).max(100).default(2),
        'CSV and JSON Lines downloads one account may stream at once; more answer 429',
      ),
      inFlightPerAccount: variable(
        'API_IN_FLIGHT_PER_ACCOUNT',
        integer().min(0).max(10_000).default(2),
        "requests of one account at work at once in each API process while another account is present in it (an account alone is not limited; a sync generate's wait for its job and a streaming download, paced instead, give their place back); the next wait their turn in the account's own line for `API_IN_FLIGHT_WAIT_MS`, then answer 429 `too_many_in_flight` with `Retry-After`, before they are counted or read. Whatever the rate limits allow, one account then holds at most this much of a process's event loop ([decision 050](decisions/050-one-account-cannot-take-the-cores.md)). Per process: N API replicas let an account have N times this. `0`: no limit",
      ),
      inFlightWaitMs: variable(
        'API_IN_FLIGHT_WAIT_MS',
        integer().min(0).max(60_000).default(1_000),
        'how long a request beyond `API_IN_FLIGHT_PER_ACCOUNT` waits for a place before its 429 (at most 32 of an account wait at once; more are refused at once); `0`: refused at once',
      ),
      inFlightRest: variable(
        'API_IN_FLIGHT_REST',
        Joi.number().min(0).max(100).default(2),
        "while another account is present in an API process, a place of `API_IN_FLIGHT_PER_ACCOUNT` that one account's request gave back rests this many times as long as the request held it (at most a quarter of `API_IN_FLIGHT_WAIT_MS`) before the account's next request takes it: each place is then at work at most 1 / (1 + this) of the time, and with it the account's whole admitted work (its jobs, their deliveries). An account alone never rests ([decision 050](decisions/050-one-account-cannot-take-the-cores.md)). `0`: no rest",
      ),
      inFlightRestMinBusy: variable(
        'API_IN_FLIGHT_REST_MIN_BUSY',
        Joi.number().min(0).max(1).default(0.5),
        "places rest (`API_IN_FLIGHT_REST`) only while the API process's event loop was busy at least this share of the last 100 ms or more (0–1): two accounts at work in a process with a quiet loop cost each other nothing, so neither is paced ([decision 050](decisions/050-one-account-cannot-take-the-cores.md)). `0`: whenever another account is present",
      ),
      unknownKeyPerMin: variable(
        'RATE_LIMIT_UNKNOWN_KEY_PER_MIN',
        integer().min(1).default(60),
        'API keys PostgreSQL is asked about per client address per minute before 429 (a known key gives its count back; keys already in memory are not counted): throttles key guessing before the database',
      ),
    },
  },
  shutdownGraceMs: variable(
    'SHUTDOWN_GRACE_MS',
    integer().min(0).default(25_000),
    'on SIGTERM: time to drain requests / finish jobs before handing them back',
  ),
  ops: {
    // null: the process's own default (opsPort); 0: no operations listener.
    port: optional(
      'OPS_PORT',
      integer().min(0).max(65535),
      'operations port: `GET /healthz`, `GET /readyz`, `GET /metrics`; `0` turns it off (two workers on one host need two ports, or none); `npm start` gives it to the API and the next port to its worker',
      { shownDefault: `api \`${DEFAULT_OPS_PORTS.api}\`, worker \`${DEFAULT_OPS_PORTS.worker}\`` },
    ),
    // The image sets 0.0.0.0 so probes from outside the container reach it.
    host: variable('OPS_HOST', Joi.string().hostname().default('127.0.0.1'), 'address the operations port listens on', {
      shownDefault: '`127.0.0.1` (`0.0.0.0` in the image)',
    }),
  },
  operatorPassword: optional(
    'OPERATOR_PASSWORD',
    Joi.string().min(12),
    'enables Bull Board at `/admin/queues` (HTTP Basic, user `operator`), 12+ characters',
    { secret: 'optional', readBy: ['api'] },
  ),
  operatorBoardWritable: flag(
    'OPERATOR_BOARD_WRITABLE',
    "`1` enables the board's write actions (see [Bull Board](operations.md#bull-board)); by default it only shows",
  ),
  productionUnsafeAcknowledged: optional(
    'PRODUCTION_UNSAFE_ACKNOWLEDGED',
    Joi.string<string[]>().custom((value: string, helpers) => {
      const names = value
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
      const unknown = names.filter((name) => !(UNSAFE_IN_PRODUCTION as readonly string[]).includes(name));
      if (unknown.length > 0) {
        return helpers.message({
          custom: `{{#label}} names switches that need no acknowledgement (${unknown.join(', ')}): only ${UNSAFE_IN_PRODUCTION.join(', ')}`,
        });
      }
      return names;
    }),
    `with \`NODE_ENV=production\` the service refuses to start while ${UNSAFE_LIST} is on, unless this comma-separated list names it: the operator says they know what it opens ([decision 027](decisions/027-abuse-resistance.md))`,
  ),
  worker: {
    sources: new Variable(
      'WORKER_QUEUES',
      // custom() makes the comma-separated list the array of queue names the worker reads.
      Joi.string()
        .custom((value: string, helpers) => {
          const names = value
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
          if (names.length === 0 || names.some((n) => !WORKER_QUEUES.includes(n))) {
            return helpers.message({
              custom: `{{#label}} must list sources from ${SOURCES.join(', ')} or ${WEBHOOK_WORKER_ENTRY} (got "{{#value}}")`,
            });
          }
          return [...new Set(names)];
        })
        .default(() => [...WORKER_QUEUES]),
      'which queues this worker serves: sources, and `webhooks` for webhook deliveries ([decision 016](decisions/016-webhooks.md))',
      { shownDefault: `\`${WORKER_QUEUES.join(',')}\`` },
      (validated) => listedQueues(validated).filter((n): n is Source => (SOURCES as readonly string[]).includes(n)),
    ),
    concurrency: variable(
      'WORKER_CONCURRENCY',
      integer().min(1).max(10_000).default(5),
      'jobs at once per source per worker process (1–10000; I/O-bound sources hold no connection while they wait)',
    ),
    reservedSlots: variable(
      'WORKER_RESERVED_SLOTS',
      integer().min(0).max(10_000).default(1),
      "fair queues: slots of each worker's `WORKER_CONCURRENCY` per source that a borrowed job never takes. A slot beyond them with nothing waiting in its queue takes the source's oldest held job of any account, so one account's backlog uses an idle fleet; the reserved ones stay free for the next account's job ([decision 020](decisions/020-fair-queues.md)). `WORKER_CONCURRENCY` or more: nothing is borrowed (each account keeps to `QUEUE_OPEN_JOBS_PER_ACCOUNT`)",
    ),
    borrowMaxBusy: variable(
      'WORKER_BORROW_MAX_BUSY',
      Joi.number().min(0).max(1).default(0.5),
      "fair queues: a worker borrows no held job (`WORKER_RESERVED_SLOTS`) while its event loop was busy more than this share of the last 100 ms or more (0–1): a slot is not a core, and CPU-bound jobs of one account's backlog in every free slot slow every other account's job in the process ([decision 050](decisions/050-one-account-cannot-take-the-cores.md)); an account's turns (`WORKER_TURNS_PER_ACCOUNT`) are kept above it too, and always at `0`. `1`: slots alone decide, as before",
    ),
    turnsPerAccount: variable(
      'WORKER_TURNS_PER_ACCOUNT',
      integer().min(0).max(10_000).default(1),
      "fair turns: while a worker's event loop is busier than `WORKER_BORROW_MAX_BUSY` and another account has had a job in it within the last second, one account runs at most this many jobs in it at once; the next wait (holding their slot, not the loop) and are let in round robin among accounts as jobs end or the loop quietens. A lone account, or jobs waiting on their upstreams, never wait ([decision 050](decisions/050-one-account-cannot-take-the-cores.md)). `0`: no turns",
    ),
    jobTimeoutMs: variable(
      'JOB_TIMEOUT_MS',
      integer().min(100).default(300_000),
      "a job's whole time budget, across retries and resumptions",
    ),
    lockMs: variable(
      'WORKER_LOCK_MS',
      integer().min(500).default(30_000),
      'how long a silent worker keeps its jobs before another takes them over',
    ),
    stalledCheckMs: variable(
      'WORKER_STALLED_CHECK_MS',
      integer().min(500).default(30_000),
      'how often workers look for jobs whose worker died',
    ),
    lostJobAfterMs: variable(
      'LOST_JOB_AFTER_MS',
      integer().min(1_000).default(30_000),
      'an open job that has not moved for this long and has no queue entry (Redis lost it) is enqueued again',
    ),
    lostJobSweepMs: variable(
      'LOST_JOB_SWEEP_MS',
      integer().min(1_000).default(15_000),
      'how often the fleet looks for such jobs (one worker per source and period)',
    ),
  },
  queue: {
    // The share (docs/ARCHITECTURE.md#a-jobs-life): one name for this bound in the code.
    share: variable(
      'QUEUE_OPEN_JOBS_PER_ACCOUNT',
      integer().min(0).max(10_000).default(4),
      "fair queues: an account's jobs of one source in its queue at once (waiting or running) by right; the rest wait in PostgreSQL and are released oldest first as these end, or into worker slots nothing else needs (`WORKER_RESERVED_SLOTS`), so one account's backlog never queues ahead of another's jobs yet can use an idle fleet ([decision 020](decisions/020-fair-queues.md)). Keep it below the fleet's slots per source (workers × `WORKER_CONCURRENCY`); `0`: no cap (first come, first served). Set the same value on every API and worker process",
    ),
  },
  sandbox: {
    pageDelayMs: variable('SANDBOX_PAGE_DELAY_MS', integer().min(0).max(60_000).default(50), 'sandbox latency per page of 10 leads'),
    inProduction: flag(
      'SANDBOX_IN_PRODUCTION',
      '`1`: with `NODE_ENV=production`, let the API and workers start while a source has no upstream key and is served by the sandbox (synthetic leads, and its `sandbox:delay=` keyword lets any account hold worker slots); without it they refuse to start, naming the sources',
    ),
  },
  providers: {
    googlePlaces: {
      ...upstream('GOOGLE_PLACES', 'google_maps through Places API (New) Text Search', 'https://places.googleapis.com', 600, [
        'worker:google_maps',
        // the API's quotes list tiles through it, and it refuses filters the configured tier omits (decision 038)
        'api',
      ]),
      // Google bills a Text Search at the costliest SKU of any field in its mask (decision 038).
      fields: variable(
        'GOOGLE_PLACES_FIELDS',
        Joi.string().valid('enterprise', 'pro').default('enterprise'),
        "which of Google's Text Search SKUs the field mask incurs: `enterprise` (every field of a google_maps lead) or `pro` (cheaper; drops phone, website, rating, review count, price level and opening hours, and with the website the email: no website is visited). Text Search's Essentials SKU returns only ids, so it is not offered ([decision 038](decisions/038-the-complete-lead.md))",
      ),
    },
    peopleDataLabs: upstream(
      'PDL',
      "linkedin through People Data Labs Person Search (and shopify's people lookup)",
      'https://api.peopledatalabs.com',
      10,
      ['worker:linkedin', 'worker:shopify'],
    ),
    // The API checks a shopify category against Store Leads' paths when its key is set (shopify-category-check).
    storeLeads: upstream('STORELEADS', 'shopify through Store Leads', 'https://storeleads.app', 60, ['worker:shopify', 'api']),
  },
  enrichment: {
    timeoutMs: variable('ENRICHMENT_TIMEOUT_MS', integer().min(100).default(8_000), 'website enrichment: time per site'),
    maxBytes: variable('ENRICHMENT_MAX_BYTES', integer().min(1024).default(1_048_576), 'website enrichment: bytes read per page'),
    concurrency: variable(
      'ENRICHMENT_CONCURRENCY',
      integer().min(1).max(1000).default(256),
      "website enrichment: sites read at once by one worker process, every job's together (an I/O budget: a site holds a socket and at most `ENRICHMENT_MAX_BYTES` per page in flight, not a core); each job reads about as many as it still needs leads ([decision 037](decisions/037-jobs-at-the-speed-of-their-upstreams.md))",
    ),
    allowPrivateNetworks: flag('ENRICHMENT_ALLOW_PRIVATE_NETWORKS', 'let enrichment reach private/loopback addresses (tests only)'),
    // Decision 040: application-shell pages rendered in headless Chromium, every request through the crawler's network guard.
    browser: {
      enabled: flag('ENRICHMENT_BROWSER', 'website enrichment: render application-shell pages in headless Chromium (decision 040); `1` on'),
      executablePath: variable(
        'ENRICHMENT_BROWSER_PATH',
        Joi.string().trim().min(1).default('/usr/bin/chromium'),
        "the browser tier's Chromium binary (Debian's `chromium` package)",
      ),
      pool: variable(
        'ENRICHMENT_BROWSER_POOL',
        integer().min(1).max(8).default(2),
        'the browser tier: pages rendered at once per worker process',
      ),
      pageTimeoutMs: variable(
        'ENRICHMENT_BROWSER_PAGE_MS',
        integer().min(500).max(60_000).default(5_000),
        'the browser tier: time budget per rendered page (navigation, scripts, settle)',
      ),
      heapMb: variable(
        'ENRICHMENT_BROWSER_HEAP_MB',
        integer().min(16).max(1024).default(128),
        "the browser tier: V8 heap cap of a page's renderer, MiB",
      ),
    },
    userAgent: variable(
      'ENRICHMENT_USER_AGENT',
      // Printable ASCII, as a header value must be.
      Joi.string()
        .trim()
        .min(1)
        .max(300)
        .pattern(/^[\x20-\x7e]+$/)
        .default((given: Record<string, unknown>) =>
          defaultEnrichmentUserAgent(typeof given.PUBLIC_BASE_URL === 'string' ? given.PUBLIC_BASE_URL : null),
        ),
      "the crawler's User-Agent; set it to name your deployment and a page or address where site owners can reach you (robots.txt rules for `LeadgenBot` apply to the default)",
      { shownDefault: '`LeadgenBot/1.0 (+<PUBLIC_BASE_URL>; reads public contact pages; honours robots.txt)`' },
    ),
  },
  verification: {
    enabled: variable(
      'EMAIL_VERIFICATION',
      Joi.boolean().truthy('on').falsy('off').default(true),
      "`on` or `off`; `off` delivers addresses without verdicts and bills them as channels: only for measuring the checks' cost",
    ),
    dnsServers: variable(
      'DNS_SERVERS',
      Joi.string<string[]>()
        .custom((value: string, helpers) => {
          const servers = value
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== '');
          const valid = /^(?:[0-9.]+|\[[0-9a-fA-F:]+\])(?::\d{1,5})?$|^[0-9a-fA-F:]+$/;
          if (servers.some((s) => !valid.test(s)))
            return helpers.message({ custom: '{{#label}} must be IP addresses, as `1.1.1.1,[2606:4700::1111]:53` (got "{{#value}}")' });
          return servers;
        })
        .default(() => []),
      "resolvers for email domains' MX/A/AAAA lookups, comma-separated `ip` or `ip:port` (`[v6]:port`); unset: the system's",
      { shownDefault: "the system's" },
    ),
    timeoutMs: variable(
      'DNS_TIMEOUT_MS',
      integer().min(50).max(30_000).default(2_000),
      'email verification: time per DNS query try (two tries)',
    ),
    concurrency: variable(
      'DNS_CONCURRENCY',
      integer().min(1).max(200).default(128),
      "email verification: DNS lookups in flight per worker process, every job's together (an I/O budget beside `ENRICHMENT_CONCURRENCY`'s: ten jobs of 100 verify a thousand domains at once, [decision 037](decisions/037-jobs-at-the-speed-of-their-upstreams.md))",
    ),
    cacheFloorSeconds: variable(
      'DNS_CACHE_MIN_TTL_SECONDS',
      integer().min(0).max(86_400).default(300),
      "email verification: shortest time a domain's verdict is kept fleet-wide",
    ),
    cacheCeilingSeconds: variable(
      'DNS_CACHE_MAX_TTL_SECONDS',
      integer().min(1).max(604_800).default(86_400),
      "email verification: longest time a domain's verdict is kept fleet-wide",
    ),
    // Mailbox-level verdicts (decision 034): DNS stays the first gate, an engine then probes mailboxes.
    engine: variable(
      'EMAIL_VERIFIER',
      Joi.string<'dns' | 'reacher' | 'zerobounce'>().valid('dns', 'reacher', 'zerobounce').default('dns'),
      'what gives mailbox-level verdicts after the DNS gate: `dns` (none: DNS alone), `reacher` (a self-hosted Reacher at `REACHER_URL`), `zerobounce` (`ZEROBOUNCE_API_KEY`)',
    ),
    reacherUrl: optional(
      'REACHER_URL',
      httpUrl().when('EMAIL_VERIFIER', { is: 'reacher', then: Joi.required() }),
      'the Reacher backend (`POST /v1/check_email`); required with `EMAIL_VERIFIER=reacher`',
    ),
    reacherSecret: optional('REACHER_SECRET', Joi.string(), "sent as `x-reacher-secret` when Reacher's `header_secret` is set", {
      secret: 'optional',
      readBy: VERIFYING_WORKERS,
    }),
    reacherRatePerMin: variable(
      'REACHER_RATE_PER_MIN',
      integer().min(1).default(60),
      "Reacher checks per minute, shared by every worker (Reacher's recommended throttle: 60 a minute)",
    ),
    zeroBounceApiKey: optional(
      'ZEROBOUNCE_API_KEY',
      Joi.string().when('EMAIL_VERIFIER', { is: 'zerobounce', then: Joi.required() }),
      'ZeroBounce validation (`GET /v2/validate`, one credit per address); required with `EMAIL_VERIFIER=zerobounce`',
      { secret: 'optional', readBy: VERIFYING_WORKERS },
    ),
    zeroBounceBaseUrl: variable(
      'ZEROBOUNCE_BASE_URL',
      httpUrl().default('https://api.zerobounce.net'),
      'where ZeroBounce is asked (`https://api-us.zerobounce.net`, `https://api-eu.zerobounce.net`, a fake)',
    ),
    zeroBounceRatePerMin: variable(
      'ZEROBOUNCE_RATE_PER_MIN',
      integer().min(1).default(480_000),
      'ZeroBounce validations per minute, shared by every worker (its documented limit: 80,000 per 10 seconds)',
    ),
    engineConcurrency: variable(
      'EMAIL_VERIFIER_CONCURRENCY',
      integer().min(1).max(200).default(8),
      'mailbox engine calls in flight per worker process',
    ),
    engineTimeoutMs: variable(
      'EMAIL_VERIFIER_TIMEOUT_MS',
      integer().min(1_000).max(120_000).default(20_000),
      'one mailbox engine attempt (an SMTP probe can take seconds); retried with backoff on 429, 5xx and network failures',
    ),
    engineAttempts: variable('EMAIL_VERIFIER_ATTEMPTS', integer().min(1).max(6).default(3), 'attempts per address, the first included'),
    pageBudgetMs: variable(
      'EMAIL_VERIFIER_PAGE_BUDGET_MS',
      integer().min(500).max(300_000).default(30_000),
      "longest a page waits for mailbox verdicts (never past the job's deadline); what is not back is `unknown`",
    ),
    downProbeMs: variable(
      'EMAIL_VERIFIER_DOWN_PROBE_MS',
      integer().min(1_000).max(3_600_000).default(30_000),
      'while the engine is down, one call per this sees whether it is back; the others are `unknown` at once',
    ),
    mailboxTtlSeconds: variable(
      'EMAIL_VERIFIER_CACHE_TTL_SECONDS',
      integer().min(60).max(7_776_000).default(604_800),
      "how long an address's mailbox verdict is kept fleet-wide (`unknown` never is)",
    ),
    catchAllTtlSeconds: variable(
      'EMAIL_VERIFIER_CATCH_ALL_TTL_SECONDS',
      integer().min(60).max(2_592_000).default(86_400),
      "how long a domain's catch-all status is kept fleet-wide: one probe per domain per this",
    ),
  },
  webhooks: {
    deliver: readingOf('WORKER_QUEUES', (validated) => listedQueues(validated).includes(WEBHOOK_WORKER_ENTRY)),
    allowPrivateNetworks: flag(
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
      '`1`: webhook targets may be loopback or private addresses, any port, and plain `http` (tests, a closed network)',
    ),
    timeoutMs: variable(
      'WEBHOOK_TIMEOUT_MS',
      integer().min(100).max(60_000).default(15_000),
      'an attempt that has not answered 2xx within this is a failure',
    ),
    retryScheduleMs: variable(
      'WEBHOOK_RETRY_SCHEDULE',
      durations().default(() => [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]),
      "waits between a delivery's attempts (each ±20 % jitter; units `ms`, `s`, `m`, `h`); its length is the number of retries",
      { shownDefault: '`5s,5m,30m,2h,5h,10h,10h`' },
    ),
    disableAfterMs: variable(
      'WEBHOOK_DISABLE_AFTER_MS',
      integer()
        .min(1_000)
        .default(3 * 24 * 3_600_000),
      'an endpoint whose every attempt failed for this long is disabled (reason `failing`)',
      {
        shownDefault: '`259200000` (3 days)',
      },
    ),
    concurrency: variable(
      'WEBHOOK_CONCURRENCY',
      integer().min(1).max(1_000).default(10),
      "deliveries at once per worker process, apart from the lead jobs' slots",
    ),
    concurrencyPerEndpoint: variable(
      'WEBHOOK_CONCURRENCY_PER_ENDPOINT',
      integer().min(1).max(1_000).default(2),
      'deliveries in flight to one endpoint (or one `webhookUrl` host) across the fleet; the rest wait their turn without holding a slot, so an endpoint that never answers holds at most these',
    ),
    concurrencyPerAccount: variable(
      'WEBHOOK_CONCURRENCY_PER_ACCOUNT',
      integer()
        .min(0)
        .max(1_000)
        .default((given: Record<string, unknown>) => defaultWebhookConcurrencyPerAccount(Number(given.WEBHOOK_CONCURRENCY ?? 10))),
      "deliveries in flight for one account across all its endpoints and jobs' `webhookUrl`s, fleet-wide; the rest wait their turn without holding a slot, so an account whose targets never answer leaves the others a slot ([decision 027](decisions/027-abuse-resistance.md)); `0`: no cap",
      { shownDefault: 'half of `WEBHOOK_CONCURRENCY`, at least 1 (`5`)' },
    ),
    lostAfterMs: variable(
      'WEBHOOK_LOST_AFTER_MS',
      integer().min(1_000).default(30_000),
      'a pending delivery this far past its due time and without a queue entry is enqueued again',
    ),
    sweepMs: variable(
      'WEBHOOK_SWEEP_MS',
      integer().min(1_000).default(15_000),
      'how often the fleet (one worker per period) looks for such deliveries',
    ),
    retentionDays: optional(
      'WEBHOOK_DELIVERY_RETENTION_DAYS',
      integer().min(3).max(36_500),
      "days a webhook delivery is kept after it was created, with its attempts: then the workers' hourly sweep deletes it, and listing or retrying it answers 404 `not_found`. A delivery still pending (its retry round lasts about 28 hours, a manual retry starts another) is kept until it ends ([decision 053](decisions/053-partitioned-audit-and-deliveries.md)). Unset: kept as long as its job, endpoint and account",
      { shownDefault: '— (kept forever)' },
    ),
  },
  monitors: {
    minIntervalMs: variable(
      'MONITOR_MIN_INTERVAL_MS',
      integer().min(1_000).default(3_600_000),
      "the shortest interval a monitor's schedule may have (`every`, or the gap between cron runs) ([decision 022](decisions/022-monitors.md))",
      { shownDefault: '`3600000` (1 hour)' },
    ),
    maxPerAccount: variable('MONITOR_MAX_PER_ACCOUNT', integer().min(1).max(10_000).default(100), 'monitors an account may have at once'),
    pauseAfterFailures: variable(
      'MONITOR_PAUSE_AFTER_FAILURES',
      integer().min(1).max(1_000).default(5),
      'this many FAILED runs of a monitor in a row pause it (reason `consecutive_failures`)',
    ),
    lostAfterMs: variable(
      'MONITOR_LOST_AFTER_MS',
      integer().min(500).default(15_000),
      'an enabled monitor this far past its due time without its tick (Redis lost its alarm) gets its alarm set again',
    ),
    sweepMs: variable(
      'MONITOR_SWEEP_MS',
      integer().min(500).default(15_000),
      'how often the fleet (one worker per period) sets again the alarms of monitors due, should Redis have lost them',
    ),
  },
};

/** The configuration every process reads: validated, typed and grouped (`config.redis.url`). */
export type Config = Resolved<typeof DECLARATION>;

/** Every variable, in docs/configuration.md's order. */
export const VARIABLES = variablesOf(DECLARATION);

/** Names of every variable the service reads (for checks of manifests and docs against the declaration). */
export const CONFIG_VARIABLES: readonly string[] = VARIABLES.map((v) => v.name);

/** A process as a deployment runs it: the API, the migrations, the admin CLI, or a worker serving some queues (WORKER_QUEUES). */
export type DeployedProcess = { kind: 'api' | 'migrate' | 'admin' } | { kind: 'worker'; queues: readonly string[] };

/** The readers a process counts as: a worker is every worker, and a worker of each queue it serves. */
function readersOf(process: DeployedProcess): Reader[] {
  return process.kind === 'worker' ? ['worker', ...process.queues.map((queue): Reader => `worker:${queue}`)] : [process.kind];
}

/** Whether a process reads a variable (one without `readBy` is read by every process). */
export function readsVariable(process: DeployedProcess, variable: Variable<unknown>): boolean {
  const readBy = variable.options.readBy;
  return readBy === undefined || readersOf(process).some((reader) => readBy.includes(reader));
}

/** The secret variables a process reads, in declaration order: all a deployment hands it from the Secret. */
export function secretVariablesOf(process: DeployedProcess): Array<Variable<unknown>> {
  return VARIABLES.filter((v) => v.options.secret !== undefined && readsVariable(process, v));
}

/** The operations port a process listens on (0: none). */
export function opsPort(config: Config, process: keyof typeof DEFAULT_OPS_PORTS): number {
  return config.ops.port ?? DEFAULT_OPS_PORTS[process];
}

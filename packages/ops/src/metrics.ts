import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';
import type { OpsHandler } from './ops-server';

/**
 * Every metric the processes export, in one place: dashboards and alerts (deploy/) name exactly
 * these, and a test checks they do. Labels are bounded sets only: route templates, sources, statuses,
 * stop reasons, upstream names, fixed outcomes. Never an id, a path or a message.
 * Counters live in the process that saw the event (the API counts creations, the worker terminal
 * statuses it settled, the API the cancels it settled): sum them across processes.
 */
const PREFIX = 'leadgen_';
let queueDepth: (() => Promise<void>) | null = null;
let batchCounts: (() => Promise<void>) | null = null;
let ledgerDrift: (() => Promise<void>) | null = null;
let readReplica: (() => Promise<void>) | null = null;
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export const metrics = {
  httpRequestDuration: new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests answered by the API, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: SECONDS,
  }),
  jobsCreated: new Counter({
    name: `${PREFIX}jobs_created_total`,
    help: 'Jobs created (idempotent replays excluded), by source',
    labelNames: ['source'] as const,
  }),
  batchesCreated: new Counter({
    name: `${PREFIX}batches_created_total`,
    help: 'Batches created (idempotent replays excluded); their children count in jobs_created_total',
  }),
  jobsTerminal: new Counter({
    name: `${PREFIX}jobs_terminal_total`,
    help: 'Jobs that reached a terminal status, by source, status and stop reason ("none" for COMPLETE)',
    labelNames: ['source', 'status', 'stop_reason'] as const,
  }),
  jobDuration: new Histogram({
    name: `${PREFIX}job_duration_seconds`,
    help: 'From creation to terminal status, by source',
    labelNames: ['source'] as const,
    buckets: JOB_SECONDS,
  }),
  timeToFirstLead: new Histogram({
    name: `${PREFIX}job_time_to_first_lead_seconds`,
    help: "From a job's creation to its first committed lead, by source",
    labelNames: ['source'] as const,
    buckets: JOB_SECONDS,
  }),
  leadsDelivered: new Counter({
    name: `${PREFIX}leads_delivered_total`,
    help: 'Leads committed to result sets, by source',
    labelNames: ['source'] as const,
  }),
  creditsCharged: new Counter({
    name: `${PREFIX}credits_charged_total`,
    help: 'Credits charged at settlement, by source',
    labelNames: ['source'] as const,
  }),
  queueJobs: new Gauge({
    async collect() {
      await queueDepth?.();
    },
    name: `${PREFIX}queue_jobs`,
    help: "Queue entries by queue and state (waiting, active, delayed), and jobs held in PostgreSQL past their account's share (held, decision 020), read by API processes at most every 10 s; use max by (queue, state)",
    labelNames: ['queue', 'state'] as const,
  }),
  batches: new Gauge({
    async collect() {
      await batchCounts?.();
    },
    name: `${PREFIX}batches`,
    help: 'Batches by status (running, COMPLETE, PARTIAL, EMPTY, FAILED, CANCELLED), read from PostgreSQL by API processes at most every 10 s; use max by (status)',
    labelNames: ['status'] as const,
  }),
  queueConsumers: new Gauge({
    name: `${PREFIX}queue_consumers`,
    help: 'Jobs this worker process can hold at once per queue (its concurrency) while it consumes it; 0 while draining',
    labelNames: ['queue'] as const,
  }),
  upstreamRequestDuration: new Histogram({
    name: `${PREFIX}upstream_request_duration_seconds`,
    help: 'Attempts at an upstream API, by upstream and outcome (ok, 429, 5xx, 4xx, unauthorized, timeout, network_error, invalid_body)',
    labelNames: ['upstream', 'outcome'] as const,
    buckets: SECONDS,
  }),
  upstreamCallsPerJob: new Histogram({
    name: `${PREFIX}upstream_calls_per_job`,
    help: "Requests a job's run sent to an upstream (retries included), by source and upstream, observed when the worker's run of the job ends",
    labelNames: ['source', 'upstream'] as const,
    buckets: [1, 2, 3, 5, 8, 13, 21, 34, 55],
  }),
  enrichmentFetches: new Counter({
    name: `${PREFIX}enrichment_fetches_total`,
    help: 'Website enrichment page fetches, by outcome (ok, http_error, not_a_page, blocked, robots_disallowed, dns_failed, too_many_redirects, aborted, network_error; rendered, render_failed: the browser tier, decision 040)',
    labelNames: ['outcome'] as const,
  }),
  // Email verification (docs/api.md): domain lookups, the fleet cache's hits (ratio: hit / (hit + miss)), verdicts delivered.
  emailDomainLookups: new Counter({
    name: `${PREFIX}email_domain_lookups_total`,
    help: 'DNS lookups of email domains, by outcome (mx, null_mx, address_fallback, nxdomain, no_records, timeout, servfail, dns_error, sandbox_rule)',
    labelNames: ['outcome'] as const,
  }),
  emailVerdictCache: new Counter({
    name: `${PREFIX}email_verdict_cache_total`,
    help: 'Fleet-wide email domain verdict cache reads, by result (hit, miss)',
    labelNames: ['result'] as const,
  }),
  emailVerdicts: new Counter({
    name: `${PREFIX}email_verdicts_total`,
    help: 'Email verdicts written on leads and contacts, by status',
    labelNames: ['status'] as const,
  }),
  // Mailbox verdicts (decision 034): the engine's calls by outcome, the fleet cache per address and
  // per domain, and every verdict written, by the engine that gave it.
  emailVerifierCalls: new Counter({
    name: `${PREFIX}email_verifier_calls_total`,
    help: 'Mailbox verification engine calls, by engine and outcome (ok, failed, late, skipped_down)',
    labelNames: ['engine', 'outcome'] as const,
  }),
  emailMailboxCache: new Counter({
    name: `${PREFIX}email_mailbox_cache_total`,
    help: 'Fleet-wide mailbox verdict cache reads, by level (address, domain) and result (hit, miss)',
    labelNames: ['level', 'result'] as const,
  }),
  emailMailboxVerdicts: new Counter({
    name: `${PREFIX}email_mailbox_verdicts_total`,
    help: 'Mailbox verdicts written on leads and contacts, by engine (dns, reacher, zerobounce) and verdict',
    labelNames: ['engine', 'verdict'] as const,
  }),
  rateLimited: new Counter({
    name: `${PREFIX}rate_limited_total`,
    help: 'Requests refused 429 by the per-account rate limits, by limit',
    labelNames: ['limit'] as const,
  }),
  // Webhooks (decision 016): per attempt, in the worker that made it.
  webhookAttemptDuration: new Histogram({
    name: `${PREFIX}webhook_attempt_duration_seconds`,
    help: 'Webhook delivery attempts, by event type and outcome (2xx, 3xx, 4xx, 410, 5xx, timeout, refused, network_error)',
    labelNames: ['event', 'outcome'] as const,
    buckets: SECONDS,
  }),
  idempotentReplays: new Counter({
    name: `${PREFIX}idempotent_replays_total`,
    help: 'POST /leads/generate answered from an earlier call with the same Idempotency-Key',
  }),
  // Monitors (decision 022): in the worker that ticked the monitor, or the API for a run asked for.
  monitorRuns: new Counter({
    name: `${PREFIX}monitor_runs_total`,
    help: "Monitors' runs by kind (scheduled, manual) and outcome (started, skipped_overlap, paused_insufficient_credits, paused_consecutive_failures)",
    labelNames: ['kind', 'outcome'] as const,
  }),
  // Objections by the data subjects (decision 042): the API counts requests and proofs, the worker the notices.
  objectionRequests: new Counter({
    name: `${PREFIX}objection_requests_total`,
    help: 'POST /privacy/objections by kind (email, domain, phone) and outcome (accepted, reused: answered with the subject’s pending objection, mail_sent, mail_throttled, mail_failed, client_throttled)',
    labelNames: ['kind', 'outcome'] as const,
  }),
  objectionConfirmations: new Counter({
    name: `${PREFIX}objection_confirmations_total`,
    help: 'Objections confirmed, by kind and proof (email_link, dns_txt, well_known, operator)',
    labelNames: ['kind', 'proof'] as const,
  }),
  objectionNotices: new Counter({
    name: `${PREFIX}objection_notices_total`,
    help: 'Accounts told of a confirmed objection (a notice in their feed, and subject.objected to their endpoints), counted by the worker that applied it',
  }),
  ledgerDrift: new Gauge({
    async collect() {
      await ledgerDrift?.();
    },
    name: `${PREFIX}credit_ledger_drift_accounts`,
    help: "Accounts whose credit counters (balance, reserved) differ from their ledger's sums (admin credits:verify), read from PostgreSQL by API processes at most every 5 min; use max",
  }),
  // Read replicas (decision 047): only an API process with DATABASE_READ_URL exports these (the others have no replica).
  readReplicaLag: new Gauge({
    async collect() {
      await readReplica?.();
    },
    name: `${PREFIX}read_replica_lag_seconds`,
    help: "The read replica's replay lag as this API process last measured it (at most a second before the scrape); absent while it cannot be measured (the replica down, no standby, nothing replayed yet)",
  }),
  readReplicaInUse: new Gauge({
    async collect() {
      await readReplica?.();
    },
    name: `${PREFIX}read_replica_in_use`,
    help: 'Whether this API process reads listings and exports on the replica (1) or on the primary (0: lag over the bound, unknown, or a failed read), as of its last measure',
  }),
  readReplicaMaxLag: new Gauge({
    name: `${PREFIX}read_replica_max_lag_seconds`,
    help: 'DATABASE_READ_MAX_LAG_MS in seconds: the lag past which this API process reads the primary',
  }),
  monitorsDue: new Gauge({
    name: `${PREFIX}monitors_due`,
    help: 'Enabled monitors whose due time has passed and whose tick has not run yet, read by each worker at every sweep tick; use max',
  }),
};

/**
 * A counter whose labels take a fixed set of values starts at 0 for every combination, as Prometheus'
 * instrumentation guide asks ("avoid missing metrics"): a series that first appears at its first event leaves a
 * panel on "No data" on a new (or sandbox-only) deployment, and rate() never sees that first increase.
 * Labels that are not a fixed set (sources, upstreams, statuses by job) appear with their first event.
 */
function startAtZero<L extends string>(counter: Counter<L>, values: Record<L, readonly string[]>): void {
  const combinations = Object.entries<readonly string[]>(values).reduce<Array<Record<string, string>>>(
    (all, [label, options]) => all.flatMap((labels) => options.map((value) => ({ ...labels, [label]: value }))),
    [{}],
  );
  for (const labels of combinations) counter.inc(labels as Partial<Record<L, string>>, 0);
}

startAtZero(metrics.rateLimited, { limit: ['generate', 'read', 'unknown_key', 'in_flight'] });
startAtZero(metrics.enrichmentFetches, {
  outcome: [
    'ok',
    'http_error',
    'not_a_page',
    'blocked',
    'robots_disallowed',
    'dns_failed',
    'too_many_redirects',
    'aborted',
    'network_error',
  ],
});
startAtZero(metrics.emailVerdictCache, { result: ['hit', 'miss'] });
startAtZero(metrics.emailVerifierCalls, { engine: ['reacher', 'zerobounce'], outcome: ['ok', 'failed', 'late', 'skipped_down'] });
startAtZero(metrics.emailMailboxCache, { level: ['address', 'domain'], result: ['hit', 'miss'] });
startAtZero(metrics.monitorRuns, {
  kind: ['scheduled', 'manual'],
  outcome: ['started', 'skipped_overlap', 'paused_insufficient_credits', 'paused_consecutive_failures'],
});
startAtZero(metrics.objectionRequests, {
  kind: ['email', 'domain', 'phone'],
  outcome: ['accepted', 'mail_sent', 'mail_throttled', 'mail_failed', 'subject_throttled', 'client_throttled'],
});
startAtZero(metrics.objectionConfirmations, {
  kind: ['email', 'domain', 'phone'],
  proof: ['email_link', 'dns_txt', 'well_known', 'operator'],
});

// Absent until reportReadReplica: a process without a replica exports no series of them (a 0 would read "on the primary").
for (const gauge of [metrics.readReplicaLag, metrics.readReplicaInUse, metrics.readReplicaMaxLag]) gauge.remove();

export type QueueCounts = Record<string, Record<'waiting' | 'active' | 'delayed', number> & { held?: number }>;

/** Where `leadgen_queue_jobs` comes from: read at scrape time, at most once per `maxAgeMs`. */
export function reportQueueDepth(read: () => Promise<QueueCounts>, maxAgeMs = 10_000): void {
  queueDepth = cachedCollector(maxAgeMs, async () => {
    for (const [queue, counts] of Object.entries(await read())) {
      for (const [state, value] of Object.entries(counts)) metrics.queueJobs.set({ queue, state }, value);
    }
  });
}

/** Where `leadgen_batches` comes from: read at scrape time, at most once per `maxAgeMs` (decision 021). */
export function reportBatchCounts(read: () => Promise<Record<string, number>>, maxAgeMs = 10_000): void {
  batchCounts = cachedCollector(maxAgeMs, async () => {
    const counts = await read();
    for (const status of ['running', 'COMPLETE', 'PARTIAL', 'EMPTY', 'FAILED', 'CANCELLED'])
      metrics.batches.set({ status }, counts[status] ?? 0);
  });
}

/** Where `leadgen_credit_ledger_drift_accounts` comes from: a whole-ledger sum, so at most once per `maxAgeMs`. */
export function reportLedgerDrift(read: () => Promise<number>, maxAgeMs = 300_000): void {
  ledgerDrift = cachedCollector(maxAgeMs, async () => metrics.ledgerDrift.set(await read()));
}

/** What the read router last measured (decision 047); `measure` takes a new measure when the last is over a second old. */
export interface ReplicaLagSource {
  measure(): Promise<{ useReplica: boolean; lagMs: number | null }>;
  readonly maxLagMs: number;
}

/**
 * Where `leadgen_read_replica_*` come from: the API's read router, measured at scrape time if its last measure is
 * older than its period (a process that serves no listing still says how far behind its replica is). A process
 * without a read URL never calls this, and exports none of the three.
 */
export function reportReadReplica(router: ReplicaLagSource): void {
  metrics.readReplicaMaxLag.set(router.maxLagMs / 1000);
  // Both gauges' collects (run side by side by one scrape) wait for the same measure.
  let measuring: Promise<void> | null = null;
  readReplica = () =>
    (measuring ??= router
      .measure()
      .then((verdict) => {
        metrics.readReplicaInUse.set(verdict.useReplica ? 1 : 0);
        // Unknown is no figure: an absent series, which a `> bound` alert does not read as fine (LeadgenReadReplicaNotUsed does).
        if (verdict.lagMs === null) metrics.readReplicaLag.remove();
        else metrics.readReplicaLag.set(verdict.lagMs / 1000);
      })
      .finally(() => {
        measuring = null;
      }));
}

let defaultsOn = false;
/** Node's process metrics (CPU, memory, event loop lag, GC); once per process. */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics();
  // Gauges named like counters break `promtool check metrics` (and Prometheus' naming rules); each is the sum
  // of its `type`-labelled sibling without the suffix, which stays: sum(nodejs_active_handles) is the same figure.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
    register.removeSingleMetric(name);
}

/** The names of every metric family this code registers (for the deploy/ check). */
export async function registeredMetricNames(): Promise<string[]> {
  return (await register.getMetricsAsJSON()).map((m) => m.name);
}

/** GET /metrics on the operations port: Prometheus text exposition. */
export const metricsRoute: OpsHandler = async (_req, res) => {
  const body = await register.metrics();
  res.writeHead(200, { 'Content-Type': register.contentType, 'Cache-Control': 'no-store' });
  res.end(body);
};

/**
 * A gauge read from elsewhere (Redis), at most once per `maxAgeMs` however often it is scraped: a
 * scrape within that time gets the last figures. Reads only while something scrapes.
 */
export function cachedCollector(maxAgeMs: number, read: () => Promise<void>): () => Promise<void> {
  let last = 0;
  let running: Promise<void> | null = null;
  return async () => {
    if (Date.now() - last < maxAgeMs) return;
    running ??= read()
      .catch(() => undefined)
      .finally(() => {
        last = Date.now();
        running = null;
      });
    await running;
  };
}

/** What a settlement reports, from the job as PostgreSQL settled it. */
export interface SettledJob {
  source: string;
  status: string;
  stopReason: string | null;
  creditsCharged: number | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** Counts a job the caller has just settled (only the settling side calls it, so each job counts once). */
export function observeSettlement(job: SettledJob): void {
  metrics.jobsTerminal.inc({ source: job.source, status: job.status, stop_reason: job.stopReason ?? 'none' });
  if (job.creditsCharged) metrics.creditsCharged.inc({ source: job.source }, job.creditsCharged);
  if (job.finishedAt)
    metrics.jobDuration.observe({ source: job.source }, Math.max(0, job.finishedAt.getTime() - job.createdAt.getTime()) / 1000);
}

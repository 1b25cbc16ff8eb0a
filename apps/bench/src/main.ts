// `npm run bench [-- --quick] [--duration S] [--rounds N] [--workers N] [--held N] [--export-leads N] [--fair-jobs N] [--webhook-timeout MS] [--only a,b]`
//
// The service against bare Express 5 + BullMQ 6 baselines, alternating in one run so the ratios
// hold on a noisy machine even when the absolute figures do not. The service is reached only
// through its public surfaces: its process entry points, environment variables, HTTP, and the
// admin functions of @leadgen/db; so the same bench measures it before and after a rewrite. The
// export section alone writes its 100,000 leads with buildDeliveredJobs (@leadgen/testing, the
// tests' factory, kept true by the tests that use it): making them through the API would take the fleet minutes.
//
// Prints figures and never fails on them. Exit code: 0 when the run completed (whatever the
// figures), 1 when a correctness check failed or a section broke (measured nothing: broken-sections.ts),
// 2 when the harness itself broke (a process would
// not start, the database could not be made...). A held-jobs run the service's configuration
// refuses is a figure ("refused"), not a harness failure.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import {
  correctnessChecks,
  createBenchAccount,
  createBenchDatabase,
  waitAllTerminal,
  type BenchDatabase,
  type CheckLine,
} from './database';
import { fairnessTable, measureFairness, type FairnessSide } from './fairness';
import { exportTable, exportTarget, measureExports, seedExportAccounts, type ExportRun } from './export-memory';
import { contentionTable, measureCreditContention, type ContentionRun } from './credit-contention';
import { heldSince, kneeSeries, kneeTable, type KneeOptions, type KneeSeries } from './knee';
import { HttpClient, closedLoop, type Task } from './load';
import { measure, type Environment, type Kind, type Measured } from './measure';
import { BenchProcess, START_TIMEOUT_MS, startProcess, waitForHttp } from './processes';
import { PostgresCpu, findPostmaster, findRedisServer, localTcpPorts, readRss } from './proc-stats';
import { measureVerificationCost } from './verification-cost';
import { browserReport, measureBrowserTier } from './browser-tier';
import { mailboxReport, measureMailboxVerification } from './mailbox-verification';
import { batchLines, measureBatch, type BatchRun } from './batch-fairness';
import { brokenSections, type SectionResults } from './broken-sections';
import { measureWebhooks, webhookTable, type WebhookSide } from './webhook';
import { concurrentLines, measureRealPath, realPathTable } from './real-path';
import { attackTable, measureAttacks } from './attacks';
import { type CorpusScore, evaluateCorpus, freePort, scoreLines, UNSEEN_SITES, WORLD_SITES } from '@leadgen/testing';
import { leadSizeTable, measureLeadSize } from './lead-size';
import { costTable, fmt, median, rate, redisBreakdown, sideBySide, summarize, targetTable, type Scenario, type Target } from './report';
import { measureDataVolume, QUICK_BIG, volumeLines, YEAR, type VolumeRun } from './data-volume';

const USAGE = `npm run bench [-- options]
  --quick             the smoke run CI makes: every section once at its smallest (1 s per side, 1 round, small
                      backlogs, batches and exports); a broken section still fails it
  --duration S        seconds of load per side per round (default 5, 1 with --quick)
  --rounds N          baseline/service alternations, and rounds of the knee's series (default 2)
  --workers N         worker processes in the end-to-end run (default 2)
  --concurrency N     WORKER_CONCURRENCY of the service's workers, and the baseline worker's (default 50)
  --fleet-clients N   clients of the end-to-end closed loop (default 64)
  --fleet-duration S  seconds of the end-to-end run (default 12, 2 with --quick)
  --held N            also hold N jobs on a slow sandbox in one worker with WORKER_CONCURRENCY=N
  --held-delay MS     sandbox delay per page of the held jobs (default 30000)
  --page-delay MS     SANDBOX_PAGE_DELAY_MS of the other jobs (default 0)
  --export-leads N    leads of the largest export (default 100000, 2000 with --quick); a tenth is exported too
  --fair-jobs N       the fairness section's backlog: N slow jobs of one account (default 100, 20 with --quick)
  --fair-delay MS     sandbox delay of each backlog job's one page (default 3000, 1000 with --quick)
  --fair-concurrency N  WORKER_CONCURRENCY of the fairness section's one worker (default 10)
  --batch-queries N   queries in the batch section's batch (default 1000, 20 with --quick)
  --webhook-timeout MS  WEBHOOK_TIMEOUT_MS of the webhook section's services (default 15000 as the service's, 2000 with --quick)
  --webhook-samples N   the other account's pings per phase in the webhook section (default 20, 3 with --quick; at most 22)
  --knee-rates a,b    offered sync generates per second of the knee's steps (default 25,50,100,150,200,250,300,350,400; 20,40 with --quick)
  --knee-step S       seconds per knee step (default 4, 1 with --quick)
  --knee-accounts N   accounts the spread series shares the load over (default 10; also the credits section's)
  --credit-clients N  jobs in flight in the credits section (default 16)
  --attacks a,b       the attacks section's phases besides idle (default all): exports, uploads, keys, flood-120, flood,
                      tarpit-120, tarpit
  --floor-split       the durable floor's job start in a transaction of its own (one more per job): its figures must move
  --only a,b          scenarios among sync1, sync50, async, get, credits, knee, fleet, export, held, fair, verify, mailbox, enrichment, browser, batch, webhook, realpath, attacks, leadsize, volume
                      (volume: deletion, erasure and the suppression page with a small account alone and beside a
                      customer's year of data, 1,000,000 leads; 50,000 with --quick)
                      (realpath: the real adapters against the upstream fakes with the issue 32 latencies, time to first
                      lead and to terminal beside the critical-path floor; 25 leads per source with --quick;
                      attacks: another account's sync p50 and webhook delay, idle and under each of issue 31's attacks,
                      beside the 1.5x and 2x floors; 2 s a phase with --quick, 10 s otherwise)`;

function usage(problem: string): never {
  console.error(`${problem}\n${USAGE}`);
  process.exit(2);
}

const { values: flags } = (() => {
  try {
    return parseArgs({
      options: {
        help: { type: 'boolean', default: false },
        quick: { type: 'boolean', default: false },
        duration: { type: 'string' },
        rounds: { type: 'string' },
        workers: { type: 'string', default: '2' },
        concurrency: { type: 'string', default: '50' },
        'fleet-clients': { type: 'string', default: '64' },
        'fleet-duration': { type: 'string' },
        held: { type: 'string', default: '0' },
        'held-delay': { type: 'string', default: '30000' },
        'page-delay': { type: 'string', default: '0' },
        'export-leads': { type: 'string' },
        'fair-jobs': { type: 'string' },
        'fair-delay': { type: 'string' },
        'fair-concurrency': { type: 'string', default: '10' },
        'batch-queries': { type: 'string' },
        'webhook-timeout': { type: 'string' },
        'webhook-samples': { type: 'string' },
        'knee-rates': { type: 'string' },
        'knee-step': { type: 'string' },
        'knee-accounts': { type: 'string', default: '10' },
        'credit-clients': { type: 'string', default: '16' },
        only: { type: 'string' },
        'floor-split': { type: 'boolean', default: false },
        attacks: { type: 'string' },
      },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
})();
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}

const QUICK = flags.quick!;
const DURATION_MS = Number(flags.duration ?? (QUICK ? 1 : 5)) * 1000;
const ROUNDS = Number(flags.rounds ?? (QUICK ? 1 : 2));
const FLEET_WORKERS = Math.max(1, Number(flags.workers));
const WORKER_CONCURRENCY = Number(flags.concurrency);
const FLEET_CLIENTS = Number(flags['fleet-clients']);
const FLEET_MS = Number(flags['fleet-duration'] ?? (QUICK ? 2 : 12)) * 1000;
const HELD = Number(flags.held);
const HELD_DELAY_MS = Number(flags['held-delay']);
const EXPORT_LEADS = Number(flags['export-leads'] ?? (QUICK ? 2_000 : 100_000));
const KNEE_RATES = (flags['knee-rates'] ?? (QUICK ? '20,40' : '25,50,100,150,200,250,300,350,400')).split(',').map(Number);
const KNEE_STEP_MS = Number(flags['knee-step'] ?? (QUICK ? 1 : 4)) * 1000;
const KNEE_ACCOUNTS = Number(flags['knee-accounts']);
const CREDIT_CLIENTS = Number(flags['credit-clients']);
const WARM_MS = QUICK ? 300 : 1_500;
const FAIR_JOBS = Number(flags['fair-jobs'] ?? (QUICK ? 20 : 100));
const FAIR_DELAY_MS = Number(flags['fair-delay'] ?? (QUICK ? 1_000 : 3_000));
const FAIR_CONCURRENCY = Number(flags['fair-concurrency']);
const WEBHOOK_TIMEOUT_MS = Number(flags['webhook-timeout'] ?? (QUICK ? 2_000 : 15_000));
const WEBHOOK_SAMPLES = Number(flags['webhook-samples'] ?? (QUICK ? 3 : 20));
// The attack of the webhook section: pings per tarpit endpoint and jobs with a tarpit webhookUrl.
const WEBHOOK_ATTACK = QUICK ? { pingsPerEndpoint: 10, jobs: 3 } : { pingsPerEndpoint: 40, jobs: 10 };
const ALL = [
  'sync1',
  'sync50',
  'async',
  'get',
  'credits',
  'knee',
  'fleet',
  'export',
  'held',
  'fair',
  'verify',
  'mailbox',
  'enrichment',
  'browser',
  'batch',
  'webhook',
  'realpath',
  'attacks',
  'leadsize',
  'volume',
] as const;
const BATCH_QUERIES = Number(flags['batch-queries'] ?? (QUICK ? 20 : 1000));
type Key = (typeof ALL)[number];
const ONLY = new Set<Key>(flags.only ? (flags.only.split(',').map((s) => s.trim()) as Key[]) : ALL.filter((k) => k !== 'held' || HELD > 0));
if (HELD > 0) ONLY.add('held');
for (const k of ONLY) if (!ALL.includes(k)) usage(`--only: unknown scenario "${k}"`);
for (const [name, v] of Object.entries({
  duration: DURATION_MS,
  rounds: ROUNDS,
  workers: FLEET_WORKERS,
  concurrency: WORKER_CONCURRENCY,
  'fleet-clients': FLEET_CLIENTS,
  'fleet-duration': FLEET_MS,
  held: HELD,
  'held-delay': HELD_DELAY_MS,
  'export-leads': EXPORT_LEADS,
  'fair-jobs': FAIR_JOBS,
  'fair-delay': FAIR_DELAY_MS,
  'fair-concurrency': FAIR_CONCURRENCY,
  'knee-step': KNEE_STEP_MS,
  'webhook-timeout': WEBHOOK_TIMEOUT_MS,
  'webhook-samples': WEBHOOK_SAMPLES,
  'knee-accounts': KNEE_ACCOUNTS,
  'credit-clients': CREDIT_CLIENTS,
  'knee-rates': KNEE_RATES.every((r) => Number.isFinite(r) && r > 0) ? 1 : NaN,
}))
  if (!Number.isFinite(v) || v < 0) usage(`--${name}: not a number`);

// WEBHOOK_TIMEOUT_MS's own range; the other account has 10 endpoints × 5 pings a minute for a warm-up and two phases.
if (WEBHOOK_TIMEOUT_MS < 100 || WEBHOOK_TIMEOUT_MS > 60_000) usage('--webhook-timeout: between 100 and 60000 (WEBHOOK_TIMEOUT_MS)');
if (WEBHOOK_SAMPLES < 1 || WEBHOOK_SAMPLES > 22) usage('--webhook-samples: between 1 and 22 (10 endpoints × 5 pings a minute)');

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/leadgen';
const RUN = randomBytes(4).toString('hex');
const PREFIX = `lgbench-${RUN}`;
const BASE_PREFIX = `lgbench-${RUN}-base`;
// Sync jobs alternate two sources the workers serve; async jobs go to shopify, which no worker
// in this run serves: the async scenario then measures job creation alone, as its baseline
// (enqueue, no worker) does, instead of sharing two cores with workers processing the backlog.
const SERVED = ['google_maps', 'linkedin'];
const SYNC_BODIES = [
  JSON.stringify({ source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 25 }),
  JSON.stringify({ source: 'linkedin', category: 'software engineer', state: 'US', maxResults: 25 }),
];
const ASYNC_BODY = JSON.stringify({ source: 'shopify', category: 'coffee', state: 'US', maxResults: 25 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.log(line);

class HarnessError extends Error {}

/** Prints the broken sections, if any; 1 when there is one (the exit code), 0 otherwise. */
function reportBroken(results: SectionResults): number {
  const broken = brokenSections(results);
  if (!broken.length) return 0;
  log('');
  log('broken sections (they measured nothing; the exit code is 1):');
  for (const line of broken) log(`  BROKEN ${line}`);
  return 1;
}

/** Set when the client-side counters saw nothing in a service process (see the warm-up). */
const counterBlind = { sql: false, redis: false };

interface Held {
  refused?: string;
  running: number;
  rss: number;
  /** the held worker's own connections (pg_stat_activity rows from its sockets) */
  pgConns: number;
  /** every connection to the bench database (the API's included) */
  allConns: number;
  /** peaks over the following stretch, through the end of the first page's delay (its commits) */
  afterRss: number;
  afterConns: number;
  afterMs: number;
}

/** The service's environment: our database, queue prefix and port, sandbox only, limits raised. */
function serviceEnv(databaseUrl: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // A benchmark must never reach (or spend credits at) a real provider: blank every upstream's
  // key and base URL, known today or added later, so each source is served by its sandbox.
  for (const name of Object.keys(env)) if (/_(API_KEY|BASE_URL)$/.test(name)) env[name] = '';
  for (const p of ['GOOGLE_PLACES', 'PDL', 'STORELEADS']) env[`${p}_API_KEY`] = env[`${p}_BASE_URL`] = '';
  return {
    ...env,
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: PREFIX,
    // Per-request log lines would cost CPU in the very processes measured.
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    SANDBOX_PAGE_DELAY_MS: String(flags['page-delay']),
    // One account sending thousands of requests a minute: otherwise the rate limiter is the figure.
    RATE_LIMIT_GENERATE_PER_MIN: '100000000',
    RATE_LIMIT_READ_PER_MIN: '100000000',
    // Likewise the requests an account may have at work while another is there (decision 050): the fleet's clients
    // are several accounts' parallel calls. The attacks section measures the service with it on.
    API_IN_FLIGHT_PER_ACCOUNT: '0',
    WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    WORKER_QUEUES: SERVED.join(','),
    // A stopping worker hands its jobs back after this instead of the 25 s default.
    SHUTDOWN_GRACE_MS: '2000',
    OPERATOR_PASSWORD: '',
    // Several API and worker processes on one machine: none may hold an operations port.
    OPS_PORT: '0',
    ...extra,
  };
}

/** Worker processes connected to every served queue: BullMQ names a worker's connection `<prefix>:<base64(queue)>`. */
async function waitForWorkers(
  redis: Redis,
  sources: string[],
  expected: number,
  procs: BenchProcess[],
  timeoutMs = Math.max(120_000, START_TIMEOUT_MS),
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const dead = procs.find((p) => !p.alive);
    if (dead) throw new HarnessError(`${dead.name} exited (code ${dead.exitCode}) while starting${dead.tail() ? `: ${dead.tail()}` : ''}`);
    const names = ((await redis.client('LIST')) as string).split('\n').map((l) => /(?:^| )name=(\S*)/.exec(l)?.[1] ?? '');
    const counts = sources.map((s) => {
      const base = `${PREFIX}:${Buffer.from(s).toString('base64')}`;
      return names.filter((n) => n === base || n.startsWith(`${base}:w:`)).length;
    });
    if (Math.min(...counts) >= expected) return true;
    if (Date.now() > until) {
      // Queue naming is BullMQ's and the service's business: if it changed, say so and go on
      // (the warm-up jobs below still wait for a worker to answer).
      log(`  ! could not see ${expected} worker connection(s) per queue in CLIENT LIST (saw ${counts.join(', ')}); going on`);
      return false;
    }
    await sleep(250);
  }
}

interface Side {
  label: string;
  client: HttpClient;
  procs: Array<{ kind: Kind; proc: BenchProcess }>;
  task: Task;
}

async function main(): Promise<number> {
  const started = Date.now();
  log(
    `leadgen bench ${RUN}: ${QUICK ? 'quick, ' : ''}${DURATION_MS / 1000} s per side x ${ROUNDS} round(s), scenarios ${[...ONLY].join(', ')}`,
  );
  log(
    `machine: ${(await import('node:os')).cpus().length} cores, load average ${(await import('node:os'))
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')} at start`,
  );

  const nothingElse: SectionResults = {
    loads: [],
    knees: [],
    exports: [],
    batch: null,
    fairness: null,
    webhooks: null,
    enrichmentFound: null,
    verificationJobs: null,
    leadSizeLeads: null,
  };
  if (ONLY.has('enrichment')) {
    // The website enricher on the unseen-sites corpus (packages/providers/test/fixtures), served from loopback.
    const score = await evaluateCorpus(UNSEEN_SITES);
    nothingElse.enrichmentFound = score.found;
    log('');
    log(`enrichment, unseen-sites corpus (${score.sites} sites, ${score.expected} business addresses, ${score.ms} ms):`);
    log(
      `  recall ${(score.recall * 100).toFixed(1)} % (${score.found}/${score.expected}; target >= 95 %), junk ${score.junk} (target 0), wrong profiles ${score.wrongProfiles} (target 0)`,
    );
    for (const site of score.perSite)
      if (site.missed.length + site.junk.length + site.wrongProfiles.length > 0)
        log(
          `  ${site.id}: missed ${site.missed.join(', ') || '-'}; junk ${site.junk.join(', ') || '-'}; profiles ${site.wrongProfiles.join(', ') || '-'}`,
        );
    // The world corpus (decision 040): the figures of its tuning and holdout halves, and the time a site costs.
    for (const half of ['tuning', 'holdout'] as const) {
      log('');
      for (const line of scoreLines(
        `enrichment, world corpus, ${half} half`,
        await evaluateCorpus(WORLD_SITES.filter((s) => s.half === half)),
      ))
        log(line);
    }
    // Time per site as a worker pays it (warm: a worker crawls for hours), the issue's "no more than a quarter" figure
    // (decision 040 compares it with the crawler before 040). One pass warms up, then the median of the others (one
    // with --quick: the halves above do not warm it as a whole pass does, 41 against 31 ms a site on one box).
    const passes: CorpusScore[] = [];
    for (let pass = 0; pass <= (QUICK ? 1 : 7); pass++) passes.push(await evaluateCorpus(WORLD_SITES));
    const timed = passes.slice(1);
    const warm = timed.sort((a, b) => a.ms - b.ms)[Math.floor((timed.length - 1) / 2)] as CorpusScore;
    log('');
    log(
      `enrichment, world corpus, time per site (warm, median of ${timed.length} pass${timed.length > 1 ? 'es' : ''}, ${WORLD_SITES.length} sites at concurrency 4): ${(warm.ms / WORLD_SITES.length).toFixed(2)} ms, ${warm.requestsPerSite} requests a site (robots.txt included; decision 040: at most 1.25x the crawler before it)`,
    );
    if ([...ONLY].every((k) => k === 'enrichment' || k === 'verify') && !ONLY.has('verify')) return reportBroken(nothingElse);
  }
  if (ONLY.has('realpath')) {
    // Self-contained (real-path.ts): its own fakes, database, API and worker, before the rest of the service starts.
    const own: BenchProcess[] = [];
    try {
      const { runs, concurrent } = await measureRealPath({
        databaseUrl: DATABASE_URL,
        prefix: PREFIX,
        env: (extra) => serviceEnv(extra.DATABASE_URL ?? DATABASE_URL, extra),
        track: (p) => (own.push(p), p),
        quick: QUICK,
        log,
      });
      log('');
      log(`real path, one job at a time (${runs.length} jobs):`);
      for (const line of realPathTable(runs)) log(line);
      if (concurrent) for (const line of concurrentLines(concurrent)) log(line);
    } finally {
      await Promise.all(own.map((p) => p.stop(8_000)));
    }
    if ([...ONLY].every((k) => k === 'realpath')) return 0;
  }
  if (ONLY.has('attacks')) {
    // Self-contained (attacks.ts): its own database, API and worker, before the rest of the service starts.
    const own: BenchProcess[] = [];
    const attackRedis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
    const began = Date.now();
    try {
      const phases = await measureAttacks({
        databaseUrl: DATABASE_URL,
        prefix: PREFIX,
        redis: attackRedis,
        env: (extra) => serviceEnv(extra.DATABASE_URL ?? DATABASE_URL, extra),
        track: (p) => (own.push(p), p),
        quick: QUICK,
        phases: flags.attacks?.split(','),
        log,
      });
      nothingElse.attacks = phases;
      log('');
      for (const line of attackTable(phases)) log(line);
      log(`  (the section took ${((Date.now() - began) / 1000).toFixed(0)} s)`);
    } catch (error) {
      nothingElse.attacks = (error as Error).message;
    } finally {
      await Promise.all(own.map((p) => p.stop(8_000)));
      await attackRedis.quit();
    }
    if ([...ONLY].every((k) => k === 'attacks')) return reportBroken(nothingElse);
  }
  if (ONLY.has('leadsize')) {
    // Self-contained (lead-size.ts): sandbox leads written into a scratch copy of `leads` in a database of its own.
    const scratch = await createBenchDatabase(DATABASE_URL);
    try {
      const jobs = QUICK ? 2 : 8;
      const rows = await measureLeadSize(scratch.url, jobs);
      nothingElse.leadSizeLeads = rows.reduce((n, r) => n + r.leads, 0);
      log('');
      log(`lead size (decision 038), ${jobs} sandbox jobs of 25 leads per source; floor = the same leads without its fields:`);
      for (const line of leadSizeTable(rows)) log(line);
    } finally {
      await scratch.drop();
    }
    if ([...ONLY].every((k) => k === 'leadsize')) return reportBroken(nothingElse);
  }
  if (ONLY.has('browser')) {
    // Self-contained (browser-tier.ts): its own loopback sites and a Chromium of its own, before the service starts.
    log('');
    for (const line of browserReport(await measureBrowserTier(QUICK ? 3 : 20))) log(line);
    if ([...ONLY].every((k) => k === 'browser')) return 0;
  }
  if (ONLY.has('mailbox')) {
    // Self-contained (scripts/bench/mailbox-verification.ts): its own fakes, in this process, before the service starts.
    log('');
    for (const line of mailboxReport(await measureMailboxVerification(QUICK ? 3 : 10))) log(line);
    if ([...ONLY].every((k) => k === 'mailbox')) return 0;
  }
  let verificationAddedMs: number | null = null;
  if (ONLY.has('verify')) {
    // In this process, before any service process starts: nothing else competes for the CPU it measures.
    const cost = await measureVerificationCost(QUICK ? 10 : 150, ROUNDS * 2);
    nothingElse.verificationJobs = cost.jobs;
    log('');
    log(
      `email verification, sandbox, worker provider stage (${cost.jobs} jobs per side, ${cost.verdictsPerJob.toFixed(1)} verdicts per job):`,
    );
    log(
      `  CPU per job: off ${cost.offCpuMsPerJob.toFixed(2)} ms, on ${cost.onCpuMsPerJob.toFixed(2)} ms (the provider stage alone: on/off ${cost.ratio.toFixed(2)})`,
    );
    verificationAddedMs = cost.onCpuMsPerJob - cost.offCpuMsPerJob;
    if ([...ONLY].every((k) => k === 'verify' || k === 'enrichment')) {
      log('  (add sync1 to the run for the ratio against a whole job: --only verify,sync1)');
      return reportBroken(nothingElse);
    }
  }
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  const processes: BenchProcess[] = [];
  let db: BenchDatabase | null = null;
  let exitCode = 0;
  const clients: HttpClient[] = [];

  const cleanup = async () => {
    await Promise.all(processes.map((p) => p.stop(8_000)));
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    // Our keys alone (every section's prefix starts with this run's, and hash-tagged keys with `{` and it):
    // leaving them would litter a shared Redis.
    for (const match of [`${PREFIX}*`, `{${PREFIX}*`]) {
      for await (const keys of redis.scanStream({ match, count: 1000 }))
        if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
    }
    await redis.quit();
    if (db) await db.drop();
  };
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    log('interrupted: stopping processes and dropping the database');
    void cleanup().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    db = await createBenchDatabase(DATABASE_URL);
    const redisPort = Number(new URL(REDIS_URL).port || 6379);
    const postmaster = findPostmaster();
    const redisPid = findRedisServer(redisPort);
    const env: Environment = {
      redis,
      redisPid,
      pg: postmaster ? new PostgresCpu(postmaster, db.name, () => [db!.probePid]) : null,
      walPosition: async () =>
        Number(
          (await db!.probe.query<{ b: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint AS b`)).rows[0]!.b,
        ),
    };
    log(
      `database ${db.name}, queue prefix ${PREFIX}; PostgreSQL postmaster pid ${postmaster ?? 'not found'}, redis-server pid ${redisPid ?? 'not found'}`,
    );
    const svcAccount = await createBenchAccount(db.url, 'bench');
    const asyncAccount = await createBenchAccount(db.url, 'bench-async');

    // Every process starts at once: tsx compiles each, seconds apiece on two busy cores.
    const apiPort = await freePort();
    const baseEnv = { ...process.env, REDIS_URL, QUEUE_PREFIX: BASE_PREFIX, BASELINE_CONCURRENCY: String(WORKER_CONCURRENCY) };
    const track = (p: BenchProcess) => (processes.push(p), p);
    const api = track(
      startProcess('service api', 'apps/api/src/main.ts', serviceEnv(db.url, { PORT: String(apiPort) }), ['pg', 'ioredis']),
    );
    const workers = [track(startProcess('service worker 1', 'apps/worker/src/main.ts', serviceEnv(db.url, {}), ['pg', 'ioredis']))];
    const ports = {
      hello: await freePort(),
      enqueue: await freePort(),
      roundtrip: await freePort(),
      exportStream: await freePort(),
      floor: 0,
    };
    const hello = track(startProcess('baseline hello', 'apps/bench/src/baselines/hello.ts', { ...baseEnv, PORT: String(ports.hello) }, []));
    const enqueue = track(
      startProcess('baseline enqueue', 'apps/bench/src/baselines/enqueue.ts', { ...baseEnv, PORT: String(ports.enqueue) }, ['ioredis']),
    );
    const rtApi = track(
      startProcess(
        'baseline roundtrip api',
        'apps/bench/src/baselines/roundtrip.ts',
        { ...baseEnv, PORT: String(ports.roundtrip), BASELINE_ROLE: 'api' },
        ['ioredis'],
      ),
    );
    const rtWorker = track(
      startProcess('baseline roundtrip worker', 'apps/bench/src/baselines/roundtrip.ts', { ...baseEnv, BASELINE_ROLE: 'worker' }, [
        'ioredis',
      ]),
    );
    // The durable floor (issue 32): the same rows written and billed the simplest way, on an account of its own.
    const wantFloor = ONLY.has('sync1') || ONLY.has('sync50');
    const floorAccount = wantFloor ? await createBenchAccount(db.url, 'bench-floor') : null;
    const floorEnv = {
      ...baseEnv,
      QUEUE_PREFIX: `${PREFIX}-floor`,
      DATABASE_URL: db.url,
      FLOOR_ACCOUNT_ID: floorAccount?.accountId ?? '',
      FLOOR_SPLIT: flags['floor-split'] ? '1' : '0',
      // the sandbox's latency per page, as the service's (serviceEnv)
      SANDBOX_PAGE_DELAY_MS: String(flags['page-delay']),
    };
    ports.floor = await freePort();
    const floorApi = wantFloor
      ? track(
          startProcess(
            'durable floor api',
            'apps/bench/src/baselines/durable-floor.ts',
            { ...floorEnv, PORT: String(ports.floor), BASELINE_ROLE: 'api' },
            ['pg', 'ioredis'],
          ),
        )
      : null;
    const floorWorker = wantFloor
      ? track(
          startProcess('durable floor worker', 'apps/bench/src/baselines/durable-floor.ts', { ...floorEnv, BASELINE_ROLE: 'worker' }, [
            'pg',
            'ioredis',
          ]),
        )
      : null;
    const exportStream = ONLY.has('export')
      ? track(
          startProcess(
            'baseline export stream',
            'apps/bench/src/baselines/export-stream.ts',
            { ...baseEnv, PORT: String(ports.exportStream) },
            [],
          ),
        )
      : null;

    const origin = (port: number) => `http://127.0.0.1:${port}`;
    await Promise.all([
      waitForHttp(`${origin(apiPort)}/healthz`, api),
      waitForHttp(`${origin(ports.hello)}/ready`, hello),
      waitForHttp(`${origin(ports.enqueue)}/ready`, enqueue),
      waitForHttp(`${origin(ports.roundtrip)}/ready`, rtApi),
      exportStream ? waitForHttp(`${origin(ports.exportStream)}/ready`, exportStream) : null,
      floorApi ? waitForHttp(`${origin(ports.floor)}/ready`, floorApi) : null,
      waitForWorkers(redis, SERVED, 1, workers),
    ]);
    log(`processes up after ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const maxC = Math.max(50, FLEET_CLIENTS) + 8;
    const svc = new HttpClient(origin(apiPort), maxC);
    const base = {
      hello: new HttpClient(origin(ports.hello), 60),
      enqueue: new HttpClient(origin(ports.enqueue), 60),
      roundtrip: new HttpClient(origin(ports.roundtrip), 60),
      floor: new HttpClient(origin(ports.floor || ports.roundtrip), 60),
    };
    clients.push(svc, base.hello, base.enqueue, base.roundtrip, base.floor);

    const auth = (apiKey: string) => ({ authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' });
    let keySeq = 0;
    const key = () => `${RUN}-${keySeq++}`;
    const svcHeaders = auth(svcAccount.apiKey);
    const asyncHeaders = { ...auth(asyncAccount.apiKey), prefer: 'respond-async' };
    const json = { 'content-type': 'application/json' };

    const syncGenerate: Task = async (c, i) => {
      const res = await c.request(
        'POST',
        '/api/v1/leads/generate',
        { ...svcHeaders, 'idempotency-key': key() },
        SYNC_BODIES[i % SYNC_BODIES.length],
      );
      return res.status === 200 ? { ok: true } : { ok: false, error: `sync generate answered ${res.status}: ${res.body.slice(0, 200)}` };
    };
    const asyncGenerate: Task = async (c) => {
      const res = await c.request('POST', '/api/v1/leads/generate', { ...asyncHeaders, 'idempotency-key': key() }, ASYNC_BODY);
      return res.status === 202 ? { ok: true } : { ok: false, error: `async generate answered ${res.status}: ${res.body.slice(0, 200)}` };
    };
    const expect =
      (method: 'GET' | 'POST', path: string, status: number, body?: string): Task =>
      async (c) => {
        const res = await c.request(method, path, body ? json : {}, body);
        return res.status === status
          ? { ok: true }
          : { ok: false, error: `${method} ${path} answered ${res.status}: ${res.body.slice(0, 200)}` };
      };

    // Warm-up: the first requests of a tsx-compiled process pay for lazy imports and JIT; also
    // proves a worker answers before anything is measured.
    const warm = await closedLoop(svc, 4, WARM_MS, syncGenerate);
    if (warm.okTotal === 0) throw new HarnessError(`no sync generate succeeded during warm-up: ${warm.firstError ?? 'no answer'}`);
    // The counters patch pg's Client and ioredis: if the service stopped using either, its figures
    // would read 0 and look like a triumph. Say so instead.
    const [apiCounts, workerCounts] = await Promise.all([api.counts(), workers[0]!.counts()]);
    counterBlind.sql = apiCounts.sql === 0 || workerCounts.sql === 0;
    counterBlind.redis = apiCounts.redis === 0 || workerCounts.redis === 0;
    log(
      `counters after warm-up (${warm.okTotal} sync jobs): api ${apiCounts.sql} SQL / ${apiCounts.redis} Redis, worker ${workerCounts.sql} SQL / ${workerCounts.redis} Redis`,
    );
    if (counterBlind.sql)
      log('  ! count-sql.cjs saw no SQL in the API or the worker: is pg still the driver? SQL figures below are not measured');
    if (counterBlind.redis)
      log(
        '  ! count-sql.cjs saw no Redis command in the API or the worker: is ioredis still the client? Redis "sent" figures are not measured',
      );

    const serviceProcs = () => [{ kind: 'api' as const, proc: api }, ...workers.map((proc) => ({ kind: 'worker' as const, proc }))];
    const scenarios: Scenario[] = [];

    // The terminal job the GET scenario reads: 100 leads, as the issue's figure.
    let terminalJobId = '';
    if (ONLY.has('get')) {
      const res = await svc.request(
        'POST',
        '/api/v1/leads/generate',
        { ...svcHeaders, 'idempotency-key': key(), prefer: 'wait=60' },
        JSON.stringify({ source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 100 }),
      );
      const body = JSON.parse(res.body) as { jobId: string; leads?: unknown[] };
      if (res.status !== 200) throw new HarnessError(`the 100-lead job did not finish within 60 s (${res.status})`);
      terminalJobId = body.jobId;
      log(`terminal job for GET: ${terminalJobId} with ${body.leads?.length ?? 0} leads (${res.body.length} bytes)`);
    }

    let floorSeq = 0;
    const floorSide: Side | undefined =
      floorApi && floorWorker
        ? {
            label: 'durable floor',
            client: base.floor,
            procs: [
              { kind: 'api', proc: floorApi },
              { kind: 'worker', proc: floorWorker },
            ],
            task: async (c) => {
              const res = await c.request('POST', '/jobs', { ...json, 'idempotency-key': `${RUN}-floor-${floorSeq++}` }, SYNC_BODIES[0]);
              return res.status === 200
                ? { ok: true }
                : { ok: false, error: `durable floor answered ${res.status}: ${res.body.slice(0, 200)}` };
            },
          }
        : undefined;
    const allDefs: Array<{ key: Key; title: string; baseline: Side; floor?: Side; service: Side; concurrency: number }> = [
      {
        key: 'sync1',
        title: 'sync generate c=1',
        concurrency: 1,
        baseline: {
          label: 'POST→add→worker→event',
          client: base.roundtrip,
          procs: [
            { kind: 'api', proc: rtApi },
            { kind: 'worker', proc: rtWorker },
          ],
          task: expect('POST', '/jobs', 200, SYNC_BODIES[0]),
        },
        ...(floorSide ? { floor: floorSide } : {}),
        service: { label: 'sync generate', client: svc, procs: serviceProcs(), task: syncGenerate },
      },
      {
        key: 'sync50',
        title: 'sync generate c=50',
        concurrency: 50,
        baseline: {
          label: 'POST→add→worker→event',
          client: base.roundtrip,
          procs: [
            { kind: 'api', proc: rtApi },
            { kind: 'worker', proc: rtWorker },
          ],
          task: expect('POST', '/jobs', 200, SYNC_BODIES[0]),
        },
        ...(floorSide ? { floor: floorSide } : {}),
        service: { label: 'sync generate', client: svc, procs: serviceProcs(), task: syncGenerate },
      },
      {
        key: 'async',
        title: 'respond-async POST c=50',
        concurrency: 50,
        baseline: {
          label: 'POST→add→202',
          client: base.enqueue,
          procs: [{ kind: 'api', proc: enqueue }],
          task: expect('POST', '/jobs', 202, ASYNC_BODY),
        },
        service: { label: 'async generate', client: svc, procs: serviceProcs(), task: asyncGenerate },
      },
      {
        key: 'get',
        title: 'GET terminal 100-lead job c=50',
        concurrency: 50,
        baseline: { label: 'Express hello', client: base.hello, procs: [{ kind: 'api', proc: hello }], task: expect('GET', '/hello', 200) },
        service: {
          label: 'GET job',
          client: svc,
          procs: serviceProcs(),
          task: async (c) => {
            const res = await c.request('GET', `/api/v1/leads/jobs/${terminalJobId}`, svcHeaders);
            return res.status === 200 ? { ok: true } : { ok: false, error: `GET job answered ${res.status}` };
          },
        },
      },
    ];
    const defs = allDefs.filter((d) => ONLY.has(d.key));

    for (const d of defs)
      scenarios.push({
        key: d.key,
        title: d.title,
        baseline: { label: d.baseline.label, runs: [] },
        ...(d.floor ? { floor: { label: d.floor.label, runs: [] } } : {}),
        service: { label: d.service.label, runs: [] },
      });
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const [i, d] of defs.entries()) {
        const sc = scenarios[i]!;
        // Alternate which side goes first, so a drift in the machine's load favours neither.
        const order = round % 2 === 1 ? (['baseline', 'floor', 'service'] as const) : (['service', 'floor', 'baseline'] as const);
        for (const which of order) {
          const side = d[which];
          if (!side) continue;
          if (round === 1) await closedLoop(side.client, d.concurrency, WARM_MS / 2, side.task);
          const m = await measure(env, side.procs, () => closedLoop(side.client, d.concurrency, DURATION_MS, side.task), {
            usesPostgres: which !== 'baseline',
          });
          sc[which]!.runs.push(m);
          log(
            `  round ${round} ${d.key.padEnd(6)} ${which.padEnd(8)} ${fmt.rate(rate(m.load)).padStart(6)} req/s${m.load.errors ? `, ${m.load.errors} errors (${m.load.firstError})` : ''}`,
          );
        }
      }
    }

    // Credits at the database alone: one account's creations and settlements against the same spread over many.
    let contention: ContentionRun[] = [];
    if (ONLY.has('credits'))
      contention = await measureCreditContention(
        db.url,
        { clients: CREDIT_CLIENTS, durationMs: DURATION_MS, rounds: ROUNDS, spread: KNEE_ACCOUNTS },
        db.probe,
        log,
      );

    // The knee: open-loop sync generates at rising rates from one account, then the same load spread
    // over KNEE_ACCOUNTS accounts, with one worker process and then two.
    const knees: KneeSeries[] = [];
    let kneeChecks: CheckLine[] = [];
    if (ONLY.has('knee')) {
      const one = await createBenchAccount(db.url, 'bench-knee-one');
      const many = await Promise.all(Array.from({ length: KNEE_ACCOUNTS }, (_, i) => createBenchAccount(db!.url, `bench-knee-${i}`)));
      const options: KneeOptions = { rates: KNEE_RATES, stepMs: KNEE_STEP_MS, maxOutstanding: 1_000, drainMs: QUICK ? 3_000 : 15_000 };
      const kneeClient = new HttpClient(origin(apiPort), options.maxOutstanding);
      clients.push(kneeClient);
      const sender = (keys: readonly string[]) => (c: HttpClient, i: number) =>
        c.request(
          'POST',
          '/api/v1/leads/generate',
          { ...auth(keys[i % keys.length]!), 'idempotency-key': key() },
          SYNC_BODIES[Math.floor(i / keys.length) % SYNC_BODIES.length],
        );
      // ROUNDS rounds of both series, the second in the other order: one step of a series tips over the box's WAL
      // capacity or does not by chance, so the knees are compared as medians of rounds.
      const series = async (workerCount: number) => {
        const both = [
          ['1 account', [one.apiKey], [one.accountId]],
          [`${KNEE_ACCOUNTS} accounts`, many.map((a) => a.apiKey), many.map((a) => a.accountId)],
        ] as const;
        for (let round = 1; round <= ROUNDS; round += 1)
          for (const [label, keys, accountIds] of round % 2 === 1 ? both : [...both].reverse()) {
            await closedLoop(kneeClient, 8, WARM_MS, async (c, i) => {
              const res = await sender(keys)(c, i);
              return { ok: res.status === 200, error: `warm-up answered ${res.status}` };
            });
            const label2 = `${label}, ${workerCount} worker${workerCount > 1 ? 's' : ''}${ROUNDS > 1 ? ` #${round}` : ''}`;
            const since = new Date();
            const measured = await kneeSeries(label2, kneeClient, options, sender(keys), db!.probe, log);
            knees.push({ ...measured, held: await heldSince(db!.probe, accountIds, since) });
          }
      };
      await series(workers.length);
      if (workers.length < 2) {
        workers.push(
          track(startProcess(`service worker ${workers.length + 1}`, 'apps/worker/src/main.ts', serviceEnv(db.url, {}), ['pg', 'ioredis'])),
        );
        await waitForWorkers(redis, SERVED, workers.length, workers);
        await series(workers.length);
      }
      // The billing guarantees for the account that took the whole load alone.
      await waitAllTerminal(db.probe, one.accountId, 60_000);
      const account = await kneeClient.request('GET', '/api/v1/account', auth(one.apiKey));
      const credits = (JSON.parse(account.body) as { credits: { balance: number; reserved: number } }).credits;
      kneeChecks = await correctnessChecks(db.probe, { accountId: one.accountId, credits, seen: new Map() });
    }

    // The worker fleet end to end: a closed loop of sync generates (202 past SYNC_WAIT_MS: poll),
    // each client holding its slot until its job is terminal, as a real caller would.
    const seen = new Map<string, { delivered: number; leads: number }>();
    let checks: CheckLine[] = [];
    let fleet: Measured | null = null;
    if (ONLY.has('fleet')) {
      for (let n = workers.length + 1; n <= FLEET_WORKERS; n += 1)
        workers.push(track(startProcess(`service worker ${n}`, 'apps/worker/src/main.ts', serviceEnv(db.url, {}), ['pg', 'ioredis'])));
      await waitForWorkers(redis, SERVED, workers.length, workers);
      if (workers.length > 1) await closedLoop(svc, 8, WARM_MS, syncGenerate); // warm the new ones
      const fleetTask: Task = async (c, i) => {
        const t0 = performance.now();
        let res = await c.request(
          'POST',
          '/api/v1/leads/generate',
          { ...svcHeaders, 'idempotency-key': key() },
          SYNC_BODIES[i % SYNC_BODIES.length],
        );
        let body = JSON.parse(res.body) as { jobId?: string; terminal?: { deliveredCount: number }; leads?: unknown[] };
        if (res.status !== 200 && res.status !== 202)
          return { ok: false, error: `generate answered ${res.status}: ${res.body.slice(0, 200)}` };
        while (!body.terminal) {
          if (performance.now() - t0 > 120_000) return { ok: false, error: `job ${body.jobId} not terminal after 120 s` };
          await sleep(50);
          res = await c.request('GET', `/api/v1/leads/jobs/${body.jobId}`, svcHeaders);
          if (res.status !== 200) return { ok: false, error: `poll answered ${res.status}` };
          body = JSON.parse(res.body) as typeof body;
        }
        seen.set(body.jobId!, { delivered: body.terminal.deliveredCount, leads: body.leads?.length ?? 0 });
        return { ok: true };
      };
      fleet = await measure(env, serviceProcs(), () => closedLoop(svc, FLEET_CLIENTS, FLEET_MS, fleetTask), { usesPostgres: true });
      scenarios.push({
        key: 'fleet',
        title: `worker fleet e2e, ${workers.length} worker process(es), c=${FLEET_CLIENTS}, jobs/s`,
        service: { label: 'fleet', runs: [fleet] },
      });
      log(
        `  fleet: ${fmt.rate(rate(fleet.load))} jobs/s with ${workers.length} worker process(es)${fleet.load.errors ? `, ${fleet.load.errors} errors (${fleet.load.firstError})` : ''}`,
      );
    }

    // Correctness over every job of the service account (sync scenarios, the GET job and the fleet).
    if (ONLY.has('fleet') || ONLY.has('sync1') || ONLY.has('sync50')) {
      await waitAllTerminal(db.probe, svcAccount.accountId, 60_000);
      const account = await svc.request('GET', '/api/v1/account', svcHeaders);
      const credits = (JSON.parse(account.body) as { credits: { balance: number; reserved: number } }).credits;
      checks = await correctnessChecks(db.probe, { accountId: svcAccount.accountId, credits, seen });
    }

    // Exports: the service's API process streaming an account's leads, beside a bare stream of the same bytes.
    let exports: ExportRun[] = [];
    if (exportStream) {
      const sizes = [Math.max(1, Math.round(EXPORT_LEADS / 10)), EXPORT_LEADS];
      const seededAt = Date.now();
      const accounts = await seedExportAccounts(db.url, sizes);
      log(
        `export: ${sizes.map((n) => n.toLocaleString('en')).join(' and ')} leads seeded in ${((Date.now() - seededAt) / 1000).toFixed(1)} s`,
      );
      exports = await measureExports({
        databaseUrl: db.url,
        service: { proc: api, origin: origin(apiPort) },
        baseline: { proc: exportStream, origin: origin(ports.exportStream) },
        accounts,
        rounds: ROUNDS,
        log,
      });
    }

    // A batch of BATCH_QUERIES queries from one account, and another account's sync generate p50 during it.
    let batch: BatchRun | null = null;
    if (ONLY.has('batch')) {
      const batchAccount = await createBenchAccount(db.url, 'bench-batch');
      const otherAccount = await createBenchAccount(db.url, 'bench-batch-other');
      log('');
      log(`batch: ${BATCH_QUERIES} queries`);
      batch = await measureBatch({
        client: svc,
        batchAuth: auth(batchAccount.apiKey),
        otherAuth: auth(otherAccount.apiKey),
        procs: [api, ...workers],
        children: BATCH_QUERIES,
        sampleMs: DURATION_MS,
        key,
        log,
      });
    }

    // Held jobs: N jobs waiting on a slow sandbox in ONE worker process with WORKER_CONCURRENCY=N.
    let held: Held | null = null;
    if (ONLY.has('held')) held = await heldJobs(env, db, redis, svc, track, workers);

    // Fairness (fairness.ts): its own API and worker per side; the other workers go first, as for held jobs.
    let fairness: FairnessSide[] | null = null;
    if (ONLY.has('fair')) {
      await Promise.all(workers.map((w) => w.stop()));
      const probe = db.probe;
      fairness = await measureFairness({
        databaseUrl: db.url,
        prefix: PREFIX,
        env: (extra) => serviceEnv(db!.url, extra),
        track,
        probe: async (sql, params) => (await probe.query(sql, params)).rows as Array<Record<string, unknown>>,
        concurrency: FAIR_CONCURRENCY,
        backlogJobs: FAIR_JOBS,
        backlogDelayMs: FAIR_DELAY_MS,
        samples: QUICK ? 4 : 30,
        fifoSamples: QUICK ? 1 : 3,
        log,
      });
    }

    // Webhooks (webhook.ts): its own API and worker per side, the other workers stopped first as for fairness.
    let webhooks: WebhookSide[] | null = null;
    if (ONLY.has('webhook')) {
      await Promise.all(workers.map((w) => w.stop()));
      const probe = db.probe;
      log('');
      log(`webhook: two sides, WEBHOOK_TIMEOUT_MS=${WEBHOOK_TIMEOUT_MS}`);
      webhooks = await measureWebhooks({
        databaseUrl: db.url,
        prefix: PREFIX,
        redis,
        env: (extra) => serviceEnv(db!.url, extra),
        track,
        probe: async (sql, params) => (await probe.query(sql, params)).rows as Array<Record<string, unknown>>,
        timeoutMs: WEBHOOK_TIMEOUT_MS,
        samples: WEBHOOK_SAMPLES,
        uncappedSamples: QUICK ? 1 : 3,
        endpoints: 10,
        ...WEBHOOK_ATTACK,
        log,
      });
    }

    // Data volume (data-volume.ts): last, as its big account would weigh on every section after it.
    let volume: VolumeRun | null = null;
    if (ONLY.has('volume')) {
      log('');
      log('volume: a small account alone, then beside a big one');
      volume = await measureDataVolume({ databaseUrl: db.url, client: svc, big: QUICK ? QUICK_BIG : YEAR, samples: QUICK ? 3 : 5, log });
    }

    const sync1 = scenarios.find((sc) => sc.key === 'sync1');
    if (verificationAddedMs !== null && sync1) {
      // The service's workers run with verification on: a whole job's CPU without it is their figure less the added part.
      const runs = sync1.service!.runs;
      const perJob =
        runs.reduce((sum, m) => sum + m.cpu.worker + m.cpu.api + (m.cpu.pg ?? 0), 0) /
        Math.max(
          1,
          runs.reduce((sum, m) => sum + m.load.okTotal, 0),
        );
      const off = perJob - verificationAddedMs;
      log(
        `email verification against a whole sync job (sync1: api + worker + PostgreSQL CPU ${perJob.toFixed(2)} ms per job): on/off ${(perJob / off).toFixed(3)} (target ≤ 1.10)`,
      );
    }
    const elapsed = (Date.now() - started) / 1000;
    if (scenarios.length) printTables(scenarios);
    if (exports.length) {
      log('');
      log('Exports: RSS of the process serving the download, from /proc: peak every 50 ms during it (highest over the rounds),');
      log('over its idle RSS after a warm-up download; sizes run smallest first, so a peak that does not climb is flat memory.');
      log('Service = the API process (ranges of whole jobs, about 2,000 leads each, rendered by PostgreSQL and read by COPY');
      log('two at once while nothing else waits, passed on in order; decision 049); baseline = bare Express streaming as many');
      log('lines of the same bytes made in memory. Growth ratio = service growth / baseline growth. COPY = the same rows');
      log('rendered the same way in one COPY by a client that keeps nothing (the floor).');
      log(exportTable(exports));
    }
    log('');
    log(targetTable([...targets(scenarios, fleet, held), exportTarget(exports)]));
    if (batch) {
      log('');
      for (const line of batchLines(batch)) log(line);
    }
    if (held) {
      log('');
      log(
        held.refused
          ? `held jobs: the worker refused WORKER_CONCURRENCY=${HELD}: ${held.refused}`
          : `held jobs: ${held.running}/${HELD} running in one worker (sandbox:delay=${HELD_DELAY_MS} per page): worker RSS ${fmt.mb(held.rss)}, its PostgreSQL connections ${held.pgConns} (pg_stat_activity by client port; ${held.allConns} to the bench database with the API's);\n  then over ${(held.afterMs / 1000).toFixed(0)} s through the first pages' commits: peak RSS ${fmt.mb(held.afterRss)}, peak connections ${held.afterConns}`,
      );
    }
    if (fairness) {
      log('');
      log(fairnessTable(fairness, { backlogJobs: FAIR_JOBS, backlogDelayMs: FAIR_DELAY_MS, concurrency: FAIR_CONCURRENCY }));
    }
    if (contention.length) {
      log('');
      log('Credits at the database: insertJob then recordSettlement of @leadgen/db straight to PostgreSQL (no HTTP, Redis or provider),');
      log(
        `${CREDIT_CLIENTS} jobs in flight on an API-like and a worker-like pool of ${CREDIT_CLIENTS}, median of the rounds: how far one account's`,
      );
      log('jobs queue behind each other on a lock, against the same load spread over several accounts.');
      log(contentionTable(contention, CREDIT_CLIENTS));
    }
    if (webhooks) {
      log('');
      log(webhookTable(webhooks, { timeoutMs: WEBHOOK_TIMEOUT_MS, endpoints: 10, ...WEBHOOK_ATTACK }));
    }
    if (knees.length) {
      log('');
      log(
        `The knee: open-loop sync generates (25 leads, sandbox page delay ${flags['page-delay']} ms), ${KNEE_STEP_MS / 1000} s per step, achieved = 200s answered`,
      );
      log("within the step; kept up = >= 90 % of the offered rate with a p50 within 5x the first step's. The same load from one account");
      log(`and spread over ${KNEE_ACCOUNTS}; "top PG waits" = the most frequent wait events of the bench database's active backends.`);
      log(kneeTable(knees));
      // The knees of a label's rounds and their median.
      const of = (label: string) => {
        const rounds = knees.filter((k) => k.label === label || k.label.startsWith(`${label} #`));
        return { rounds, median: median(rounds.map((k) => k.knee)) };
      };
      const said = (k: ReturnType<typeof of>) =>
        `${k.median}/s${k.rounds.length > 1 ? ` (rounds ${k.rounds.map((r) => r.knee).join(', ')})` : ''}`;
      for (const workerCount of [1, 2]) {
        const workers = `${workerCount} worker${workerCount > 1 ? 's' : ''}`;
        const [a, b] = [of(`1 account, ${workers}`), of(`${KNEE_ACCOUNTS} accounts, ${workers}`)];
        if (a.rounds.length && b.rounds.length)
          log(
            `  ${workers}: one account's knee / ${KNEE_ACCOUNTS} accounts' = ${said(a)} / ${said(b)} = ${b.median ? (a.median / b.median).toFixed(2) : '-'} (target >= 0.8), worst p50 step x${Math.max(...a.rounds.map((r) => r.worstJump)).toFixed(1)} (target < x100)`,
          );
      }
      const [w1, w2] = [of(`${KNEE_ACCOUNTS} accounts, 1 worker`), of(`${KNEE_ACCOUNTS} accounts, 2 workers`)];
      if (w1.rounds.length && w2.rounds.length)
        log(
          `  2 workers / 1 worker (${KNEE_ACCOUNTS} accounts' knee): ${said(w2)} / ${said(w1)} = ${w1.median ? (w2.median / w1.median).toFixed(2) : '-'}`,
        );
      log('correctness (the one account of the knee, every job):');
      for (const c of kneeChecks) log(`  ${c.ok ? 'OK    ' : 'FAILED'} ${c.what}`);
      if (kneeChecks.some((c) => !c.ok)) exitCode = 1;
    }
    if (volume) {
      log('');
      for (const line of volumeLines(volume)) log(line);
    }
    if (checks.length) {
      log('');
      log('correctness (service account, after the end-to-end scenario):');
      for (const c of checks) log(`  ${c.ok ? 'OK    ' : 'FAILED'} ${c.what}`);
      if (checks.some((c) => !c.ok)) exitCode = 1;
    }
    const broken = reportBroken({
      ...nothingElse,
      loads: scenarios.flatMap((sc) =>
        (['baseline', 'floor', 'service'] as const).flatMap((side) =>
          (sc[side]?.runs ?? []).map((m) => ({ section: sc.key, side, load: m.load })),
        ),
      ),
      knees,
      exports,
      batch,
      fairness,
      webhooks,
      volume,
    });
    if (broken) exitCode = broken;
    log('');
    log(
      `run took ${elapsed.toFixed(0)} s; load average at end ${(await import('node:os'))
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')} (other users of this machine count in it)`,
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (!interrupted) await cleanup();
  }
  return exitCode;
}

async function heldJobs(
  env: Environment,
  db: BenchDatabase,
  redis: Redis,
  svc: HttpClient,
  track: (p: BenchProcess) => BenchProcess,
  workers: BenchProcess[],
): Promise<Held> {
  // The other workers go first: every held job must be in the one worker under test.
  await Promise.all(workers.map((w) => w.stop()));
  const account = await createBenchAccount(db.url, 'bench-held');
  const worker = track(
    startProcess(
      'held worker',
      'apps/worker/src/main.ts',
      // One account's jobs, every slot: no slot reserved for another account (borrowed slots, decision 020).
      serviceEnv(db.url, { WORKER_CONCURRENCY: String(HELD), WORKER_RESERVED_SLOTS: '0', WORKER_QUEUES: 'google_maps' }),
      ['pg', 'ioredis'],
    ),
  );
  const ready = await Promise.race([
    waitForWorkers(redis, ['google_maps'], 1, []).then(() => 'ready'),
    worker.whenExited().then(() => 'exited'),
  ]);
  if (ready === 'exited' || !worker.alive) {
    return {
      refused: `exit code ${worker.exitCode}: ${worker.tail() || '(no message)'}`,
      running: 0,
      rss: 0,
      pgConns: 0,
      allConns: 0,
      afterRss: 0,
      afterConns: 0,
      afterMs: 0,
    };
  }

  const headers = { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', prefer: 'respond-async' };
  // A long per-page delay: each job sits on its first page for HELD_DELAY_MS, holding nothing but a slot.
  const body = JSON.stringify({
    source: 'google_maps',
    category: 'dentist',
    state: 'US',
    keyword: `sandbox:delay=${HELD_DELAY_MS}`,
    maxResults: 25,
  });
  let posted = 0;
  let refusedPost: string | undefined;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (posted < HELD && !refusedPost) {
        posted += 1;
        const res = await svc.request('POST', '/api/v1/leads/generate', { ...headers, 'idempotency-key': `${RUN}-held-${posted}` }, body);
        if (res.status !== 202) refusedPost = `held generate answered ${res.status}: ${res.body.slice(0, 200)}`;
      }
    }),
  );
  if (refusedPost) log(`  ! ${refusedPost}`);
  const postedAt = Date.now();
  // Wait until the worker has taken every job (running), within the delay they are held for.
  const until = Date.now() + Math.min(HELD_DELAY_MS, 120_000);
  let running = 0;
  while (Date.now() < until && worker.alive) {
    running = (
      await db.probe.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND status::text = 'running'", [
        account.accountId,
      ])
    ).rows[0]!.n;
    if (running >= HELD) break;
    await sleep(250);
  }
  // Then samples while all are held (2 s), and on until the first pages' delay has passed, so the
  // burst of page commits that ends the wait is seen too: a pool bounded only while nothing
  // happens would not be bounded.
  const sampleOnce = async () => {
    const rss = readRss(worker.pid) ?? 0;
    // The worker's own connections: pg_stat_activity rows whose client port is one of its sockets
    // (the API's connections to the same database are not the worker's).
    const ports = [...localTcpPorts(worker.pid)];
    const { rows } = await db.probe.query<{ all: number; mine: number }>(
      'SELECT count(*)::int AS all, count(*) FILTER (WHERE client_port = ANY($1::int[]))::int AS mine FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      [ports],
    );
    return { rss, mine: rows[0]!.mine, all: rows[0]!.all };
  };
  const held: Held = { running, rss: 0, pgConns: 0, allConns: 0, afterRss: 0, afterConns: 0, afterMs: 0 };
  const heldUntil = Date.now() + 2_000;
  while (Date.now() < heldUntil && worker.alive) {
    const s = await sampleOnce();
    held.rss = Math.max(held.rss, s.rss);
    held.pgConns = Math.max(held.pgConns, s.mine);
    held.allConns = Math.max(held.allConns, s.all);
    await sleep(200);
  }
  const afterStart = Date.now();
  const afterUntil = postedAt + HELD_DELAY_MS + 3_000;
  while (Date.now() < afterUntil && worker.alive) {
    const s = await sampleOnce();
    held.afterRss = Math.max(held.afterRss, s.rss);
    held.afterConns = Math.max(held.afterConns, s.mine);
    await sleep(250);
  }
  held.afterMs = Date.now() - afterStart;
  if (!worker.alive) return { ...held, refused: `worker exited while holding jobs (code ${worker.exitCode}): ${worker.tail()}` };
  return held;
}

function printTables(scenarios: Scenario[]): void {
  log('');
  log(sideBySide(scenarios));
  log('');
  log('Per successful request. CPU in ms from /proc: api, worker = all processes of that kind; pg = backends of the bench');
  log('database + PostgreSQL auxiliary processes; svc total = api + worker + pg + redis; pg cluster = every process of the');
  log('cluster incl. exited backends (other users count). SQL = statements sent through pg by API + worker (of them');
  log('BEGIN/COMMIT/ROLLBACK/SAVEPOINT). redis sent = commands the measured processes sent (>= round trips); redis exec =');
  log('INFO total_commands_processed delta of the whole instance (counts each redis.call inside Lua scripts, and other');
  log('users). RSS = peak of the largest process of that kind; pg conns = peak connections to the bench database; WAL =');
  log("bytes of WAL the PostgreSQL cluster inserted (pg_current_wal_insert_lsn; other users count): the knee's bound on this box.");
  log(costTable(scenarios));
  for (const line of redisBreakdown(scenarios)) log(line);
}

function targets(scenarios: Scenario[], fleet: Measured | null, held: Held | null): Target[] {
  const find = (k: string) => scenarios.find((s) => s.key === k);
  const s1 = find('sync1');
  const s50 = find('sync50');
  const asy = find('async');
  const get = find('get');
  const out: Target[] = [];
  const svc1 = s1 && summarize(s1.service.runs);
  out.push({ what: 'sync c=1 p50 <= 10 ms', measured: svc1 ? fmt.ms(svc1.p50) : '-', met: svc1 ? (svc1.p50 ?? Infinity) <= 10 : null });
  const fleetRate = fleet ? rate(fleet.load) : null;
  out.push({
    what: '>= 150 jobs/s of 25 leads end to end',
    measured: fleetRate === null ? '-' : `${fmt.rate(fleetRate)} jobs/s`,
    met: fleetRate === null ? null : fleetRate >= 150,
  });
  // Per sync job at c=50: the steady state, where idle overheads spread thinnest.
  const svc50 = s50 && summarize(s50.service.runs);
  const cpu = svc50?.cpu.serviceTotal ?? null;
  out.push({
    what: '<= 10 ms CPU per sync job, all processes',
    measured: cpu === null ? '-' : `${fmt.ms(cpu)} (sync c=50; api+worker+pg+redis)`,
    met: cpu === null ? null : cpu <= 10,
  });
  const sqlOk = svc50 && !counterBlind.sql;
  out.push({
    what: '<= 15 SQL statements per job',
    measured: sqlOk
      ? `${fmt.n(svc50.sql)} (sync c=50: api ${fmt.n(svc50.sqlApi)}, worker ${fmt.n(svc50.sql - svc50.sqlApi)})`
      : counterBlind.sql
        ? 'counter saw no SQL'
        : '-',
    met: sqlOk ? svc50.sql <= 15 : null,
  });
  out.push({
    what: '<= 6 Redis round trips per job',
    measured:
      svc50 && !counterBlind.redis
        ? `${fmt.n(svc50.redisClient, 2)} commands sent by api+worker (sync c=50; instance INFO ${fmt.n(svc50.redisInfo)})`
        : '-',
    met: svc50 && !counterBlind.redis ? svc50.redisClient <= 6 : null,
  });
  const ratio = (sc: Scenario | undefined) =>
    sc && sc.baseline ? summarize(sc.service.runs).reqPerS / summarize(sc.baseline.runs).reqPerS : null;
  const ra = ratio(asy);
  out.push({ what: 'async POST >= 0.3x baseline', measured: ra === null ? '-' : `${fmt.ratio(ra)}x`, met: ra === null ? null : ra >= 0.3 });
  const rg = ratio(get);
  out.push({
    what: 'terminal GET >= 0.3x baseline',
    measured: rg === null ? '-' : `${fmt.ratio(rg)}x`,
    met: rg === null ? null : rg >= 0.3,
  });
  out.push({
    what: '1,000 held jobs, one worker: < 250 MB RSS, <= 20 PG conns',
    // Judged on the worse of "while held" and "through the first pages' commits".
    measured: !held
      ? '-'
      : held.refused
        ? `${HELD} refused: ${held.refused.slice(0, 120)}`
        : `${held.running} held: ${fmt.mb(Math.max(held.rss, held.afterRss))}, ${Math.max(held.pgConns, held.afterConns)} conns (worker's, peak)`,
    met: !held
      ? null
      : held.refused
        ? false
        : HELD >= 1000 &&
          held.running >= 1000 &&
          Math.max(held.rss, held.afterRss) < 250 * 1024 * 1024 &&
          Math.max(held.pgConns, held.afterConns) <= 20,
  });
  return out;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`bench failed${error instanceof HarnessError ? '' : ' (harness error)'}: ${error.stack ?? error.message}`);
    process.exit(2);
  },
);

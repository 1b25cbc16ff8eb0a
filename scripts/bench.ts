// `npm run bench [-- --jobs 300 --parallel 20 --workers 2 --concurrency 10 --page-delay 0]`
// A load run against sandbox providers: the API in this process, the worker as N processes
// (--workers 0: in this process), its own database and queue prefix. It prints figures and
// correctness checks and never asserts: speed targets are read by people, not enforced by tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { loadConfig } from '@leadgen/config';
import { createAccount, createDatabase, grantCredits, issueApiKey, migrate } from '@leadgen/db';
import { setLogLevel } from '@leadgen/logger';
import { startApi } from '../apps/api/src/server';
import { startWorker } from '../apps/worker/src/worker-runtime';

const { values: flags } = parseArgs({
  options: {
    jobs: { type: 'string', default: '300' },
    parallel: { type: 'string', default: '20' },
    workers: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '10' },
    'page-delay': { type: 'string', default: '0' },
  },
});
const JOBS = Number(flags.jobs);
const PARALLEL = Number(flags.parallel);
const WORKERS = Number(flags.workers);
const GRANT = 100_000_000;
const POLL_MS = 100;
const POLL_TIMEOUT_MS = 120_000;
const TERMINAL = ['COMPLETE', 'PARTIAL', 'EMPTY', 'FAILED', 'CANCELLED'];
const REQUESTS = [
  { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin' },
  { source: 'linkedin', category: 'software engineer', state: 'US' },
  { source: 'shopify', category: 'coffee', state: 'US' },
];

interface JobBody { jobId: string; terminal?: { deliveredCount: number }; leads?: unknown[] }
interface Outcome { status: number; latencyMs: number; doneMs: number; leads: number; delivered: number; error?: string }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (v: number | undefined) => (v === undefined ? '-' : `${v.toFixed(0)} ms`);
function percentile(values: number[], p: number): number | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  // Per-job info lines would cost CPU in the very processes being measured (and bury the figures).
  const logLevel = process.env.LOG_LEVEL ?? 'warn';
  setLogLevel(logLevel);
  const dbUrl = new URL(loadConfig(process.env).database.url);
  dbUrl.pathname = '/leadgen_bench';
  const prefix = `lgbench-${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
    DATABASE_URL: dbUrl.toString(),
    QUEUE_PREFIX: prefix,
    PORT: '0',
    // Several workers on one host: none of them takes the operations port (9465).
    OPS_PORT: '0',
    LOG_LEVEL: logLevel,
    SANDBOX_PAGE_DELAY_MS: String(flags['page-delay']),
    WORKER_CONCURRENCY: String(flags.concurrency),
    // One account firing hundreds of requests a minute: the rate limiter would otherwise be the figure.
    RATE_LIMIT_GENERATE_PER_MIN: '10000000',
    RATE_LIMIT_READ_PER_MIN: '10000000',
    // Sandbox whatever the shell configures: a benchmark must never spend real provider credits.
    ...Object.fromEntries(['GOOGLE_PLACES', 'PDL', 'STORELEADS'].flatMap((p) => [[`${p}_API_KEY`, ''], [`${p}_BASE_URL`, '']])),
  };
  const config = loadConfig(env);

  // A fresh database each run, so figures and checks never depend on an earlier run.
  const adminUrl = new URL(dbUrl);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS leadgen_bench WITH (FORCE)');
  await admin.end();
  await migrate(dbUrl.toString());

  const db = createDatabase(dbUrl.toString(), { poolSize: 1 });
  const account = await createAccount(db, 'bench');
  await grantCredits(db, account.id, GRANT);
  const { apiKey } = await issueApiKey(db, account.id);
  await db.$disconnect();
  const auth = { Authorization: `Bearer ${apiKey}` };

  const pg = new Client({ connectionString: dbUrl.toString() });
  await pg.connect();
  const redis = new Redis(config.redis.url);
  const redisMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);
  const redisBefore = await redisMemory();

  const api = await startApi(config);
  const inProcessWorker = WORKERS === 0 ? await startWorker(config) : null;
  const root = path.resolve(__dirname, '..');
  let stopping = false;
  const children: ChildProcess[] = [];
  for (let i = 0; i < WORKERS; i += 1) {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/worker/src/main.ts')], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code, signal) => {
      if (!stopping) console.error(`worker process ${child.pid} exited early (code ${code}, signal ${signal})`);
    });
    children.push(child);
  }

  const samplers: NodeJS.Timeout[] = [];
  const cleanup = async () => {
    stopping = true;
    samplers.forEach(clearInterval);
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        if ((await Promise.race([exited, sleep(15_000).then(() => 'timeout')])) === 'timeout') child.kill('SIGKILL');
      }),
    );
    await inProcessWorker?.close();
    await api.close();
    // The queue keys are ours alone (unique prefix); leaving them would only litter Redis.
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 500 })) if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
    await redis.quit();
    await pg.end();
  };

  try {
    await waitForWorkers(api.deps.producer.queues(), Math.max(WORKERS, 1));

    // Measured beside the load: the API shares this process with the load generator.
    let apiPeakRss = 0;
    let pgPeak = 0;
    let pgBusy = false;
    const pgCountSql = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'leadgen_bench' AND pid <> pg_backend_pid()";
    samplers.push(setInterval(() => (apiPeakRss = Math.max(apiPeakRss, process.memoryUsage().rss)), 100));
    samplers.push(
      setInterval(() => {
        if (pgBusy) return;
        pgBusy = true;
        void pg.query<{ n: number }>(pgCountSql)
          .then((r) => (pgPeak = Math.max(pgPeak, r.rows[0]!.n)), () => undefined)
          .finally(() => (pgBusy = false));
      }, 250),
    );

    const baseUrl = `http://127.0.0.1:${api.port}`;
    const runJob = async (i: number): Promise<Outcome> => {
      const started = performance.now();
      const res = await fetch(`${baseUrl}/api/v1/leads/generate`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': `${prefix}-${i}` },
        body: JSON.stringify({ ...REQUESTS[i % REQUESTS.length], maxResults: 25 }),
      });
      const latencyMs = performance.now() - started;
      let body = (await res.json()) as JobBody;
      if (res.status !== 200 && res.status !== 202) return { status: res.status, latencyMs, doneMs: latencyMs, leads: 0, delivered: 0, error: JSON.stringify(body) };
      while (!body.terminal) {
        if (performance.now() - started > POLL_TIMEOUT_MS) throw new Error(`job ${body.jobId} not terminal after ${POLL_TIMEOUT_MS} ms`);
        await sleep(POLL_MS);
        const poll = await fetch(`${baseUrl}/api/v1/leads/jobs/${body.jobId}`, { headers: auth });
        if (poll.status !== 200) throw new Error(`poll of ${body.jobId} answered ${poll.status}: ${await poll.text()}`);
        body = (await poll.json()) as JobBody;
      }
      return { status: res.status, latencyMs, doneMs: performance.now() - started, leads: body.leads?.length ?? 0, delivered: body.terminal.deliveredCount };
    };

    // A closed loop of PARALLEL clients: each keeps its slot until its job is terminal, as a real caller would.
    const outcomes: Outcome[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < JOBS) outcomes.push(await runJob(next++));
      }),
    );
    const wallS = (performance.now() - t0) / 1000;
    const pgEnd = (await pg.query<{ n: number }>(pgCountSql)).rows[0]!.n;
    const redisAfter = await redisMemory();
    // VmHWM is the kernel's own peak-RSS mark: nothing to sample, read it before the process ends.
    const workerPeaks = children.map((c) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${c.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024);

    const sync = outcomes.filter((o) => o.status === 200);
    const accepted = outcomes.filter((o) => o.status === 202);
    const failed = outcomes.filter((o) => o.error !== undefined);
    const leads = outcomes.reduce((sum, o) => sum + o.leads, 0);
    const lat = sync.map((o) => o.latencyMs);
    const done = outcomes.filter((o) => !o.error).map((o) => o.doneMs);
    const workerDesc = WORKERS === 0 ? 'in-process worker' : `${WORKERS} worker process(es)`;
    console.log(`\nleadgen bench: ${JOBS} jobs, ${PARALLEL} in flight, ${workerDesc} x concurrency ${flags.concurrency} per source, page delay ${flags['page-delay']} ms`);
    console.log(`wall time           ${wallS.toFixed(2)} s`);
    console.log(`throughput          ${(outcomes.length / wallS).toFixed(1)} jobs/s, ${(leads / wallS).toFixed(0)} leads/s`);
    console.log(`POST answered 200   ${sync.length}: p50 ${ms(percentile(lat, 50))}, p95 ${ms(percentile(lat, 95))}, p99 ${ms(percentile(lat, 99))}, max ${ms(percentile(lat, 100))}`);
    console.log(`POST answered 202   ${accepted.length} (polled every ${POLL_MS} ms until terminal)`);
    console.log(`POST errors         ${failed.length}${failed[0] ? ` (first: ${failed[0].status} ${failed[0].error?.slice(0, 200)})` : ''}`);
    console.log(`end-to-end per job  p50 ${ms(percentile(done, 50))}, p95 ${ms(percentile(done, 95))}`);
    console.log(`PostgreSQL conns    peak ${pgPeak}, after the run ${pgEnd} (leadgen_bench, this script's probe excluded)`);
    console.log(`Redis used_memory   ${mb(redisAfter)} (${redisAfter >= redisBefore ? '+' : '-'}${mb(Math.abs(redisAfter - redisBefore))} during the run; whole instance)`);
    console.log(`peak RSS            api ${mb(apiPeakRss)} (shares its process with the load generator${WORKERS === 0 ? ' and worker' : ''})${workerPeaks.length ? `; workers ${workerPeaks.map(mb).join(', ')}` : ''}`);

    // Correctness, read from PostgreSQL (the source of truth) and cross-checked with what clients got.
    const one = async <T>(sql: string) => (await pg.query(sql)).rows[0] as T;
    const check = (ok: boolean, what: string) => console.log(`  ${ok ? 'OK    ' : 'FAILED'} ${what}`);
    const statuses = (await pg.query<{ status: string; n: number }>('SELECT status::text, count(*)::int AS n FROM jobs GROUP BY 1 ORDER BY 1')).rows;
    const jobs = await one<{ n: number; open: number; delivered: number; charged: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status::text <> ALL ('{${TERMINAL.join(',')}}'))::int AS open,
              COALESCE(sum(delivered_count), 0)::int AS delivered, COALESCE(sum(credits_charged), 0)::int AS charged FROM jobs`,
    );
    const leadRows = await one<{ n: number }>('SELECT count(*)::int AS n FROM leads');
    const dups = await one<{ n: number }>('SELECT count(*)::int AS n FROM (SELECT 1 FROM leads GROUP BY job_id, dedup_key HAVING count(*) > 1) d');
    const multi = await one<{ n: number }>("SELECT count(*)::int AS n FROM (SELECT 1 FROM credit_ledger WHERE kind = 'charge' GROUP BY job_id HAVING count(*) > 1) d");
    const mismatched = await one<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs j LEFT JOIN credit_ledger l ON l.job_id = j.id AND l.kind = 'charge' WHERE COALESCE(l.amount, 0) <> COALESCE(j.credits_charged, 0)",
    );
    const credits = ((await (await fetch(`${baseUrl}/api/v1/account`, { headers: auth })).json()) as { credits: { balance: number; reserved: number } }).credits;
    const clientDelivered = outcomes.reduce((sum, o) => sum + o.delivered, 0);

    console.log('correctness');
    check(jobs.open === 0 && jobs.n === JOBS - failed.length, `every job terminal: ${jobs.n - jobs.open}/${jobs.n} (${statuses.map((s) => `${s.status} ${s.n}`).join(', ')})`);
    check(leads === jobs.delivered && clientDelivered === jobs.delivered && leadRows.n === jobs.delivered,
      `leads delivered ${leads} = sum(deliveredCount) ${jobs.delivered} (clients saw ${clientDelivered}; ${leadRows.n} lead rows)`);
    check(dups.n === 0, `no duplicate (job_id, dedup_key): ${dups.n} duplicated`);
    check(multi.n === 0 && mismatched.n === 0, `ledger: at most one charge per job (${multi.n} with more), equal to creditsCharged (${mismatched.n} differ)`);
    check(credits.balance === GRANT - jobs.charged && credits.reserved === 0,
      `balance ${credits.balance} = grants ${GRANT} - charges ${jobs.charged}; reserved ${credits.reserved}`);
  } finally {
    await cleanup();
  }
}

/** Figures must not include the workers' start-up (tsx compiling them), so load starts once every queue has its consumers. */
async function waitForWorkers(queues: Queue[], expected: number): Promise<void> {
  const until = Date.now() + 60_000;
  while ((await Promise.all(queues.map((q) => q.getWorkersCount()))).some((n) => n < expected)) {
    if (Date.now() > until) throw new Error(`workers did not connect within 60 s`);
    await sleep(100);
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(`bench failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);

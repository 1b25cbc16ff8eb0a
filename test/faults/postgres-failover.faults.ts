import { migrate, writableHostUrl } from '@leadgen/db';
import { generate, idempotencyKey, startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { sleep, startWorkerProcess, type WorkerProcess } from './fault-world';
import { startAutoFailover, type AutoFailoverCluster } from './pg-auto-failover';
import { checkInvariants, describeViolations } from './invariants';

// The PostgreSQL primary is lost (its keeper and server SIGKILLed) while an API takes jobs and a worker runs them;
// pg_auto_failover promotes the secondary. Both processes know the two hosts only through DATABASE_URL
// (`h1,h2 … target_session_attrs=read-write`, decision 045). Clients meanwhile get 503 with Retry-After, never a 500;
// a client retrying with its Idempotency-Key gets one job per key; every job ends COMPLETE once, with its leads,
// charged once, and the ledger adds up. The time from the kill to the first job accepted again is printed.
const PER_JOB = 30;
const LOST_JOB_AFTER_MS = 3_000;
const LOST_JOB_SWEEP_MS = 2_000;
const SETTLE_MS = 60_000;

describe('the PostgreSQL primary is killed under load, on pg_auto_failover', () => {
  let cluster: AutoFailoverCluster;
  let world: TestWorld;
  let account: TestAccount;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    cluster = await startAutoFailover();
    // As `npm run db:migrate` does with a multi-host URL: on the host that takes writes.
    await migrate(await writableHostUrl(cluster.url));
    const env = {
      DATABASE_URL: cluster.url,
      LOST_JOB_AFTER_MS: String(LOST_JOB_AFTER_MS),
      LOST_JOB_SWEEP_MS: String(LOST_JOB_SWEEP_MS),
    };
    world = await startWorld({ worker: false, env });
    workers.push(
      startWorkerProcess({
        ...env,
        REDIS_URL: world.config.redis.url,
        QUEUE_PREFIX: world.config.redis.queuePrefix,
        WORKER_LOCK_MS: '1000',
        WORKER_STALLED_CHECK_MS: '500',
        WORKER_CONCURRENCY: '5',
      }),
    );
    await Promise.all(workers.map((w) => w.ready));
    account = await buildAccount(world.db, { credits: 10_000_000 });
  }, 150_000);

  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await world?.close();
    cluster?.stop();
  });

  it('when the primary dies and the standby is promoted, then no request gets a 500, no job is lost or doubled, and the ledger adds up', async () => {
    const answers: Array<{ at: number; status: number; retryAfter?: string }> = [];
    const jobs = new Map<string, string>(); // Idempotency-Key → jobId
    // One client, submitting jobs back to back; on 503 it retries the same key, as Retry-After invites.
    let submitting = true;
    const client = (async () => {
      while (submitting) {
        const key = idempotencyKey();
        for (let attempt = 0; attempt < 200; attempt += 1) {
          const res = await generate(
            world,
            account,
            { category: 'dentist', state: 'US', maxResults: PER_JOB, keyword: 'sandbox:delay=200' },
            { Prefer: 'respond-async', 'Idempotency-Key': key },
          );
          answers.push({ at: Date.now(), status: res.status, retryAfter: res.get('Retry-After') });
          if (res.status === 202) {
            jobs.set(key, res.body.jobId as string);
            break;
          }
          if (res.status !== 503) break;
          await sleep(250);
        }
        await sleep(100);
      }
    })();

    let failover: Awaited<ReturnType<AutoFailoverCluster['killPrimary']>>;
    let recoveredAt: number;
    try {
      await sleep(3_000);
      failover = await cluster.killPrimary();
      // Load goes on until jobs are accepted again, and a little after.
      const deadline = Date.now() + 60_000;
      while (!answers.some((a) => a.at > failover.promotedAt && a.status === 202) && Date.now() < deadline) await sleep(100);
      recoveredAt = answers.find((a) => a.at > failover.killedAt && a.status === 202)?.at ?? NaN;
      await sleep(2_000);
    } finally {
      submitting = false;
      await client;
    }

    const ids = [...jobs.values()];
    const started = Date.now();
    for (;;) {
      const open = await world.db.sql
        .query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1) AND status IN ('queued', 'running')`, [ids])
        .then((r) => r.rows[0]!.n);
      if (open === 0) break;
      if (Date.now() - started > SETTLE_MS)
        throw new Error(`${open} jobs still open ${SETTLE_MS} ms after the failover\n${workers[0]!.output().slice(-3000)}`);
      await sleep(250);
    }
    const { rows } = await world.db.sql.query<{ id: string; status: string; delivered: number; leads: number; charges: number }>(
      `SELECT j.id, j.status::text, j.delivered_count AS delivered,
              (SELECT count(*)::int FROM leads l WHERE l.job_id = j.id) AS leads,
              (SELECT count(*)::int FROM credit_ledger e WHERE e.job_id = j.id AND e.kind = 'charge') AS charges
         FROM jobs j WHERE j.account_id = $1`,
      [account.accountId],
    );
    const summary = {
      killed: failover.primary,
      promotedMs: failover.promotedAt - failover.killedAt,
      firstJobAcceptedMs: recoveredAt - failover.killedAt,
      answers: Object.fromEntries([...new Set(answers.map((a) => a.status))].map((s) => [s, answers.filter((a) => a.status === s).length])),
      jobs: ids.length,
    };
    process.stderr.write(`PostgreSQL failover: ${JSON.stringify(summary)}\n`);

    // The failover happened under load: some answers came before it, some after, some (likely) during.
    expect(answers.some((a) => a.at < failover.killedAt && a.status === 202)).toBe(true);
    expect(Number.isFinite(recoveredAt)).toBe(true);
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
    expect(answers.filter((a) => a.status === 503 && !/^\d+$/.test(a.retryAfter ?? ''))).toEqual([]);
    expect(answers.filter((a) => a.status !== 202 && a.status !== 503)).toEqual([]);
    // One job per key (none doubled, none created behind a 503 and lost to its client), each whole and charged once.
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(rows.filter((r) => r.status !== 'COMPLETE' || r.delivered !== PER_JOB || r.leads !== PER_JOB || r.charges !== 1)).toEqual([]);
    expect(describeViolations(await checkInvariants(await writableHostUrl(cluster.url), { accountIds: [account.accountId] }))).toBe('');
    // The worker said where its writes go now.
    expect(workers[0]!.output()).toContain('after a failover');
  }, 180_000);
});

import type { ChildProcess } from 'node:child_process';
import { idempotencyKey, startWorkerProcess, startWorld, type TestWorld, type WorkerProcess } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { ownDatabase, ownRedis, sleep } from '../faults/fault-world';
import { checkInvariants, describeViolations } from '../faults/invariants';

// A batch through a real fleet: worker processes as an operator starts them, on a Redis and a database of this
// test's own (wiping the one touches nobody else, and the short lost-job wait of the other takes no other test
// file's open jobs), killed and wiped as machines and operators do.
const LOST_JOB_AFTER_MS = 3_000;
const LOST_JOB_SWEEP_MS = 1_000;

describe('a batch through a real worker fleet', () => {
  let redis: Awaited<ReturnType<typeof ownRedis>>;
  let database: Awaited<ReturnType<typeof ownDatabase>>;
  let world: TestWorld;
  const workers: WorkerProcess[] = [];
  let env: Record<string, string>;

  function startWorker(): WorkerProcess {
    const worker = startWorkerProcess({
      ...env,
      QUEUE_PREFIX: world.config.redis.queuePrefix,
      WORKER_QUEUES: 'google_maps',
      WORKER_LOCK_MS: '1000',
      WORKER_STALLED_CHECK_MS: '500',
      WORKER_CONCURRENCY: '4',
      SANDBOX_PAGE_DELAY_MS: '5',
    });
    workers.push(worker);
    return worker;
  }

  beforeAll(async () => {
    redis = await ownRedis();
    database = await ownDatabase();
    env = {
      REDIS_URL: redis.url,
      DATABASE_URL: database.url,
      LOST_JOB_AFTER_MS: String(LOST_JOB_AFTER_MS),
      LOST_JOB_SWEEP_MS: String(LOST_JOB_SWEEP_MS),
      QUEUE_OPEN_JOBS_PER_ACCOUNT: '8',
    };
    world = await startWorld({ worker: false, env });
    for (let i = 0; i < 3; i += 1) startWorker();
    await Promise.all(workers.map((w) => w.ready));
  }, 60_000);

  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await world?.close();
    await redis?.stop();
    await database?.drop();
  });

  function create(account: TestAccount, body: unknown) {
    return world.http
      .post('/api/v1/leads/batches')
      .set(account.auth)
      .set('Idempotency-Key', idempotencyKey())
      .send(body as object);
  }

  async function settledChildren(batchId: string): Promise<number> {
    const { rows } = await world.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE batch_id = $1 AND status NOT IN ('queued', 'running')`,
      [batchId],
    );
    return rows[0]!.n;
  }

  async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what} not reached after ${timeoutMs} ms`);
      await sleep(200);
    }
  }

  async function batchBody(account: TestAccount, batchId: string) {
    const res = await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth);
    expect(res.status).toBe(200);
    return res.body;
  }

  it('when a 1,000-query batch runs while a worker is SIGKILLed and Redis is wiped, then every child ends, overlapping areas are delivered once, and the counts and the ledger add up', async () => {
    const account = await buildAccount(world.db, { credits: 1_000_000 });
    // 100 areas asked 10 times each: 12 businesses exist per area (sandbox `only=12`), so the 10 children of an
    // area deliver 12 between them, never one twice, whichever worker runs them and in whatever order.
    const requests = Array.from({ length: 1000 }, (_, i) => ({
      category: 'dentist',
      state: 'US',
      city: `Town ${i % 100}`,
      keyword: 'sandbox:only=12',
      maxResults: 5,
    }));
    const created = await create(account, { name: 'fleet', requests });
    expect(created.status).toBe(202);
    const batchId = created.body.batchId as string;

    await until(async () => (await settledChildren(batchId)) >= 150, 120_000, '150 children settled');
    const killed = workers[0]!;
    killed.kill('SIGKILL');
    await new Promise((resolve) => (killed as ChildProcess).once('exit', resolve));
    await startWorker().ready;

    await until(async () => (await settledChildren(batchId)) >= 400, 120_000, '400 children settled');
    await redis.stop();
    await sleep(500);
    await redis.start();

    await until(async () => (await batchBody(account, batchId)).status !== 'running', 240_000, 'the batch terminal');
    const batch = await batchBody(account, batchId);
    expect(batch.terminal).toBeDefined();
    const counts = batch.counts as Record<string, number>;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1000);
    expect([counts.queued, counts.running]).toEqual([0, 0]);
    expect(batch.deliveredCount).toBe(1200);

    const { rows: keys } = await world.db.sql.query<{ n: number; distinct_keys: number; charged: number; children_delivered: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT l.dedup_key)::int AS distinct_keys,
              (SELECT sum(credits_charged)::int FROM jobs WHERE batch_id = $1) AS charged,
              (SELECT sum(delivered_count)::int FROM jobs WHERE batch_id = $1) AS children_delivered
       FROM leads l JOIN jobs j ON j.id = l.job_id WHERE j.batch_id = $1`,
      [batchId],
    );
    expect(keys[0]).toEqual({ n: 1200, distinct_keys: 1200, charged: batch.creditsCharged, children_delivered: 1200 });
    expect(describeViolations(await checkInvariants(world.config.database.url, { accountIds: [account.accountId] }))).toBe('');
  }, 480_000);

  it('when maxCredits is raced for by several workers, then the batch never charges more and the uncovered children end batch_budget_exhausted', async () => {
    const account = await buildAccount(world.db, { credits: 100_000 });
    // Each child reserves max(2 × 10, 10) = 20 as it starts: 110 covers five, whatever runs at once.
    const requests = Array.from({ length: 40 }, (_, i) => ({ category: 'bakery', state: 'US', city: `Village ${i}`, maxResults: 10 }));
    const created = await create(account, { requests, maxCredits: 110 });
    const batchId = created.body.batchId as string;
    await until(async () => (await batchBody(account, batchId)).status !== 'running', 120_000, 'the batch terminal');
    const batch = await batchBody(account, batchId);
    expect(batch.creditsCharged).toBeLessThanOrEqual(110);
    expect(batch.creditsCharged).toBe(100);
    expect(batch.counts).toMatchObject({ COMPLETE: 5, CANCELLED: 35 });
    const { rows } = await world.db.sql.query<{ stop_reason: string; n: number }>(
      `SELECT stop_reason, count(*)::int AS n FROM jobs WHERE batch_id = $1 AND status = 'CANCELLED' GROUP BY stop_reason`,
      [batchId],
    );
    expect(rows).toEqual([{ stop_reason: 'batch_budget_exhausted', n: 35 }]);
    expect(describeViolations(await checkInvariants(world.config.database.url, { accountIds: [account.accountId] }))).toBe('');
  }, 180_000);

  it('when the owner cancels mid-batch, then the open children stop, what was delivered is kept and billed once, and the batch is CANCELLED', async () => {
    const account = await buildAccount(world.db, { credits: 100_000 });
    const requests = Array.from({ length: 60 }, (_, i) => ({
      category: 'florist',
      state: 'US',
      city: `City ${i}`,
      keyword: 'sandbox:delay=200',
      maxResults: 30,
    }));
    const created = await create(account, { requests });
    const batchId = created.body.batchId as string;
    await until(async () => (await settledChildren(batchId)) >= 5, 60_000, '5 children settled');
    const cancelled = await world.http.delete(`/api/v1/leads/batches/${batchId}`).set(account.auth);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(cancelled.body.counts.CANCELLED).toBeGreaterThan(0);
    const after = await world.db.sql.query<{ delivered: number }>(
      `SELECT sum(delivered_count)::int AS delivered FROM jobs WHERE batch_id = $1`,
      [batchId],
    );
    await sleep(1_500);
    const later = await world.db.sql.query<{ delivered: number }>(
      `SELECT sum(delivered_count)::int AS delivered FROM jobs WHERE batch_id = $1`,
      [batchId],
    );
    expect(later.rows[0]!.delivered).toBe(after.rows[0]!.delivered);
    expect(cancelled.body.deliveredCount).toBe(after.rows[0]!.delivered);
    expect(describeViolations(await checkInvariants(world.config.database.url, { accountIds: [account.accountId] }))).toBe('');
  }, 120_000);
});

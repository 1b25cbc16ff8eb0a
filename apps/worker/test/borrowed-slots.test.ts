import { markBorrowed, heldJobCount } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { channels, closeRedis, producerConnection, redisKeys, subscribeJobEvents, waitUntilConnected } from '@leadgen/queue';
import { generate, pollUntilTerminal, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';
import { ownDatabase, sleep } from '../../../test/faults/fault-world';
import { startIdleSlotFiller } from '../src/borrow-idle-slots';

// Borrowed slots (docs/decisions/020-fair-queues.md): a worker's slots beyond its reserve that nothing waits for
// take held jobs of any account. On a database of this file's own: a borrow takes the oldest held job of any
// account, so on the shared test database it would take other files' held jobs (test/setup-env.ts turns
// borrowing off everywhere else).

const slow = (delayMs: number) => ({ category: 'dentist', state: 'US', maxResults: 10, keyword: `sandbox:delay=${delayMs}` });
const quick = { category: 'dentist', state: 'US', maxResults: 5 };

describe('borrowed slots', () => {
  let database: Awaited<ReturnType<typeof ownDatabase>>;
  let world: TestWorld;

  beforeAll(async () => {
    database = await ownDatabase();
    // One worker, 6 slots per source, 1 reserved; each account's fair share is 2.
    world = await startWorld({
      env: {
        DATABASE_URL: database.url,
        WORKER_QUEUES: 'google_maps',
        WORKER_CONCURRENCY: '6',
        WORKER_RESERVED_SLOTS: '1',
        QUEUE_OPEN_JOBS_PER_ACCOUNT: '2',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await database?.drop();
  });

  async function running(accountId: string): Promise<number> {
    const { rows } = await world.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND status = 'running'`,
      [accountId],
    );
    return rows[0]!.n;
  }

  async function createHeld(account: TestAccount, source: Source, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const res = await generate(world, account, { ...quick, source, category: `held ${i}` }, { Prefer: 'respond-async' });
      expect(res.status).toBe(202);
      ids.push(res.body.jobId as string);
    }
    return ids;
  }

  it('when one account has a backlog of slow jobs on an otherwise idle worker, then it runs on every slot but the reserved one, and another account’s generate takes that one at once', async () => {
    const heavy = await buildAccount(world.db, { credits: 100_000 });
    const other = await buildAccount(world.db);
    const backlog: string[] = [];
    // Jobs of 10 s (cancelled at the end, which ends their wait at once): none ends while the slots are counted, even
    // when a loaded machine takes seconds to borrow (4 s jobs: the first two ended in the window and read 3, not 5).
    for (let i = 0; i < 12; i += 1)
      backlog.push((await generate(world, heavy, slow(10_000), { Prefer: 'respond-async' })).body.jobId as string);
    try {
      // 2 by the fair release, 3 borrowed (6 slots − 1 reserved − 2): within the filler's period of a second.
      const until = Date.now() + 5_000;
      while ((await running(heavy.accountId)) < 5 && Date.now() < until) await sleep(100);
      expect(await running(heavy.accountId)).toBe(5);
      await sleep(1_200); // another period: nothing more is borrowed into the reserve
      expect(await running(heavy.accountId)).toBe(5);
      expect(await heldJobCount(world.db, heavy.accountId, 'google_maps')).toBe(7);

      const started = Date.now();
      const res = await generate(world, other, quick);
      expect({ status: res.status, fast: Date.now() - started < 2_000 }).toEqual({ status: 200, fast: true });
      expect(res.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 5 });
    } finally {
      for (const jobId of backlog) await world.http.delete(`/api/v1/leads/jobs/${jobId}`).set(heavy.auth);
    }
  }, 60_000);

  it('when a borrowed job ends, then its slot borrows the next held job, and the whole backlog ends without waiting for the fair share alone', async () => {
    const heavy = await buildAccount(world.db, { credits: 100_000 });
    const jobs: string[] = [];
    for (let i = 0; i < 10; i += 1)
      jobs.push((await generate(world, heavy, slow(1_000), { Prefer: 'respond-async' })).body.jobId as string);
    const started = Date.now();
    for (const jobId of jobs) expect((await pollUntilTerminal(world, heavy, jobId, 30_000)).terminal.status).toBe('COMPLETE');
    // 10 jobs of ~1 s: 5 rounds on the fair share of 2 alone; on 5 slots 2 rounds (and the filler's period).
    expect(Date.now() - started).toBeLessThan(4_500);
  }, 60_000);

  it('when held single jobs of two accounts and a batch’s held children wait, then a borrow takes the single jobs, oldest first whatever the account, up to its limit, and never a child or a row another transaction holds', async () => {
    // linkedin: a source this file's worker does not serve, so nothing but these calls releases its jobs.
    const a = await buildAccount(world.db, { credits: 100_000 });
    const b = await buildAccount(world.db, { credits: 100_000 });
    const aJobs = await createHeld(a, 'linkedin', 4); // 2 released (the fair share), 2 held
    const bJobs = await createHeld(b, 'linkedin', 3); // 2 released, 1 held
    const batch = await world.http
      .post('/api/v1/leads/batches')
      .set(a.auth)
      .set('Idempotency-Key', `borrow-${Date.now()}`)
      .send({ requests: [0, 1, 2, 3].map((i) => ({ ...quick, source: 'linkedin', category: `child ${i}` })) });
    expect(batch.status).toBe(202);
    const heldA = aJobs.slice(2);
    const heldB = bJobs.slice(2);

    // A cancel in progress holds the oldest held row: skipped, not waited for.
    const locker = await world.db.sql.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [heldA[0]]);
      const first = await markBorrowed(world.db, 'linkedin', 1);
      expect(first).toEqual([{ jobId: heldA[1], accountId: a.accountId }]);
      await locker.query('ROLLBACK');
    } finally {
      locker.release();
    }
    const rest = await markBorrowed(world.db, 'linkedin', 10);
    expect(rest).toEqual([
      { jobId: heldA[0], accountId: a.accountId },
      { jobId: heldB[0], accountId: b.accountId },
    ]);
    // Every held job left is a batch child; a borrow takes none of them.
    expect(await markBorrowed(world.db, 'linkedin', 10)).toEqual([]);
    const { rows } = await world.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE batch_id = $1 AND released_at IS NULL AND status = 'queued'`,
      [batch.body.batchId],
    );
    expect(rows[0]!.n).toBe(4);
    expect(await markBorrowed(world.db, 'linkedin', 0)).toEqual([]);
  }, 60_000);

  it('when an account’s job was borrowed, then it runs beyond the share: its end releases nothing (without the release lock), and the account’s own releases still fill its share at once', async () => {
    // shopify: a source this file's worker does not serve; the share is 2.
    const account = await buildAccount(world.db, { credits: 100_000 });
    const [fair1, , heldJob] = await createHeld(account, 'shopify', 3);
    expect(await markBorrowed(world.db, 'shopify', 10)).toEqual([{ jobId: heldJob, accountId: account.accountId }]);
    // Two in the share, one borrowed beside it: a new job is held (the share is full).
    const [next] = await createHeld(account, 'shopify', 1);
    expect(await heldJobCount(world.db, account.accountId, 'shopify')).toBe(1);
    // The borrowed job ends: it had no place in the share, so its settlement frees none, releases nothing and does not
    // even wait for the account's release lock (held here by another transaction the whole time).
    const locker = await world.db.sql.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`SELECT pg_advisory_xact_lock(hashtextextended('release_held_jobs:' || $1 || ':shopify', 0))`, [
        account.accountId,
      ]);
      const cancelled = world.http
        .delete(`/api/v1/leads/jobs/${heldJob}`)
        .set(account.auth)
        .then((res) => res.status);
      expect(await Promise.race([cancelled, sleep(5_000).then(() => 'waited for the lock')])).toBe(200);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    expect(await heldJobCount(world.db, account.accountId, 'shopify')).toBe(1);
    // One of the share ends: its settlement releases the next job into the share, the borrowed one notwithstanding.
    expect((await world.http.delete(`/api/v1/leads/jobs/${fair1}`).set(account.auth)).status).toBe(200);
    expect(await heldJobCount(world.db, account.accountId, 'shopify')).toBe(0);
    const { rows } = await world.db.sql.query<{ borrowed: boolean }>('SELECT borrowed FROM jobs WHERE id = $1', [next]);
    expect(rows[0]!.borrowed).toBe(false);
  }, 60_000);

  it('when a worker’s free slots are counted, then it borrows only what is beyond its reserve and beyond the entries already waiting (one taken while the list is read included), and nothing with a reserve as large as its slots', async () => {
    const account = await buildAccount(world.db, { credits: 100_000 });
    const held = (await createHeld(account, 'shopify', 8)).slice(2); // 6 held
    const enqueued: string[][] = [];
    // The API's lifecycle, its queue recording what the borrow enqueues: a worker of this file would run them otherwise.
    const lifecycle = {
      ...world.api.deps.lifecycle,
      share: 2,
      queue: { enqueueReleased: async (_source: Source, _accountId: string, ids: readonly string[]) => void enqueued.push([...ids]) },
    };
    let waiting = 0;
    let whileReading = () => {};
    const filler = (reserved: number) =>
      startIdleSlotFiller({ lifecycle, waiting: async () => (whileReading(), waiting) }, ['shopify'], {
        concurrency: 4,
        reserved,
        periodMs: 60_000,
      });

    const off = filler(4);
    await off.fill('shopify');
    off.stop();
    expect(enqueued).toEqual([]);

    const on = filler(1);
    on.started('shopify'); // one slot busy: 4 − 1 − 1 reserved = 2 free
    waiting = 1; // one of them has an entry waiting for it already
    await on.fill('shopify');
    expect(enqueued).toEqual([[held[0]]]);
    waiting = 0;
    await on.fill('shopify');
    expect(enqueued).toEqual([[held[0]], [held[1], held[2]]]);
    on.stop();
    // A worker with every slot free, where an entry leaves the wait list for one of them while the list is read:
    // that slot is busy (BullMQ's 'active' event) though the list no longer shows it: 4 − 1 − 1 reserved = 2 free.
    const taking = filler(1);
    whileReading = () => taking.started('shopify');
    await taking.fill('shopify');
    expect(enqueued).toEqual([[held[0]], [held[1], held[2]], [held[3], held[4]]]);
    taking.stop();
  }, 60_000);

  it('when the worker’s event loop is busier than WORKER_BORROW_MAX_BUSY, or jobs in it wait for their account’s turn, then it borrows nothing though slots are free, and borrows again once neither holds (decision 050)', async () => {
    const account = await buildAccount(world.db, { credits: 100_000 });
    const held = (await createHeld(account, 'shopify', 5)).slice(2); // 3 held
    const enqueued: string[][] = [];
    const lifecycle = {
      ...world.api.deps.lifecycle,
      share: 2,
      queue: { enqueueReleased: async (_source: Source, _accountId: string, ids: readonly string[]) => void enqueued.push([...ids]) },
    };
    let utilisation = 0.9; // CPU-bound jobs in its slots: the cores, not the slots, are full
    let turnsWaiting = 0;
    const filler = startIdleSlotFiller(
      { lifecycle, waiting: async () => 0, busy: () => utilisation, turnsWaiting: () => turnsWaiting },
      ['shopify'],
      {
        concurrency: 4,
        reserved: 1,
        periodMs: 60_000,
        maxBusy: 0.5,
      },
    );
    try {
      await sleep(150); // the loop's utilisation is read over 100 ms at least
      await filler.fill('shopify');
      expect(enqueued).toEqual([]);
      expect(await heldJobCount(world.db, account.accountId, 'shopify')).toBe(3);
      // A quiet loop, but a job waits for its account's turn: one borrowed now would wait too, holding a slot.
      utilisation = 0.2;
      turnsWaiting = 1;
      await sleep(150);
      await filler.fill('shopify');
      expect(enqueued).toEqual([]);
      turnsWaiting = 0;
      await filler.fill('shopify');
      // 4 − 1 reserved = 3 slots, the oldest held jobs of any account (a test above left one of its own held).
      expect(enqueued.flat()).toHaveLength(3);
      expect(enqueued.flat()).toEqual(expect.arrayContaining(held.slice(0, 2)));
    } finally {
      filler.stop();
    }
  }, 60_000);

  it('when a job is created held, then the API nudges the fleet with its source, and a worker borrows it at once if it has a slot beyond its reserve free, and does nothing (no I/O) if not', async () => {
    const account = await buildAccount(world.db, { credits: 100_000 });
    const channel = channels(redisKeys(world.config.redis)).jobHeld;
    const redis = producerConnection(world.config.redis, 'nudge-test');
    const heard: Source[] = [];
    const subscription = subscribeJobEvents(world.config.redis, { onHeld: (source) => heard.push(source) });
    try {
      await waitUntilConnected(redis, 5_000);
      // The subscription is not awaited by its maker: wait until Redis counts two subscribers (this one and the worker's).
      const until = Date.now() + 5_000;
      while (((await redis.call('PUBSUB', 'NUMSUB', channel)) as [string, number])[1] < 2 && Date.now() < until) await sleep(20);
      // A nudge the tests above left in the API's coalescing window (at most one per source every 50 ms) may still
      // arrive: what this test hears starts once that window has passed.
      await sleep(200);
      heard.length = 0;

      // linkedin: a source this file's worker does not serve, whose only held jobs left by the tests above are a
      // batch's children (never borrowed), so this one stays held until this test borrows it.
      const [, , held] = await createHeld(account, 'linkedin', 3); // the share is 2: the third is held, and nudges
      await createHeld(await buildAccount(world.db), 'linkedin', 1); // under its share: no nudge
      await redis.publish(channel, 'not-a-source'); // ignored
      await redis.publish(channel, 'shopify');
      while (heard.at(-1) !== 'shopify' && Date.now() < until) await sleep(20);
      expect(heard).toEqual(['linkedin', 'shopify']);

      const enqueued: string[] = [];
      let looked = 0;
      const filler = startIdleSlotFiller(
        {
          lifecycle: {
            ...world.api.deps.lifecycle,
            share: 2,
            queue: { enqueueReleased: async (_source: Source, _accountId: string, ids: readonly string[]) => void enqueued.push(...ids) },
          },
          waiting: async () => (looked += 1) && 0,
        },
        ['linkedin'],
        { concurrency: 2, reserved: 1, periodMs: 3_600_000 },
      );
      try {
        filler.started('linkedin'); // 2 slots − 1 busy − 1 reserved: nothing free
        await filler.nudge('linkedin');
        await filler.nudge('shopify'); // a source this filler does not serve
        expect({ looked, enqueued }).toEqual({ looked: 0, enqueued: [] });
        filler.ended('linkedin'); // one free beyond the reserve
        await filler.nudge('linkedin');
        expect({ looked, enqueued }).toEqual({ looked: 1, enqueued: [held] });
      } finally {
        filler.stop();
      }
    } finally {
      await subscription.close();
      await closeRedis(redis);
    }
  }, 60_000);
});

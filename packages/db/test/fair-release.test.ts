import { newId, reservationFor, type GenerationRequest, type Source } from '@leadgen/domain';
import {
  accountsWithHeldJobs,
  createDatabase,
  insertJob,
  withdrawJob,
  insertJobWithin,
  creditSummary,
  findJob,
  heldJobCount,
  markReleased,
  recordSettlement,
  startJob,
  stillOpenJobs,
  type Database,
} from '../src';
import { buildAccount } from '../../../test/factories';

// Fair queues (docs/decisions/020-fair-queues.md): PostgreSQL decides which jobs are in the queues.

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 8 });
});
afterAll(() => db.$disconnect());

/** the account's share of a source's queue (docs/ARCHITECTURE.md#glossary) */
const capOf = (share: number): number => share;

function newJob(accountId: string, share: number, source: Source = 'google_maps') {
  const jobId = newId.job();
  const request: GenerationRequest = { source, category: 'dentist', state: 'US', maxResults: 5 };
  return {
    accountId,
    idempotencyKey: jobId,
    fingerprint: jobId,
    idempotencyTtlHours: 1,
    jobId,
    resultSetId: newId.resultSet(),
    request,
    creditsReserved: reservationFor(source, 5),
    share,
  };
}

async function create(accountId: string, share: number, source: Source = 'google_maps', onRelease?: (ids: readonly string[]) => void) {
  const created = await insertJob(db, newJob(accountId, share, source));
  if (created.kind !== 'created') throw new Error(`not created: ${created.kind}`);
  onRelease?.(created.released);
  return created;
}

/** n jobs of the account, a millisecond apart at least: "oldest first" is by creation time, which has millisecond precision. */
async function createInOrder(accountId: string, share: number, n: number) {
  const jobs = [];
  for (let i = 0; i < n; i += 1) {
    jobs.push(await create(accountId, share));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return jobs;
}

async function releasedAt(jobId: string): Promise<Date | null> {
  const { rows } = await db.sql.query<{ released_at: Date | null }>('SELECT released_at FROM jobs WHERE id = $1', [jobId]);
  return rows[0]!.released_at;
}

describe('fair release of an account’s jobs into the source queues', () => {
  it('when an account creates more jobs than its cap, then the first are released and enqueued, the rest held; another account and another source are not held', async () => {
    const { accountId } = await buildAccount(db);
    const other = await buildAccount(db);
    const enqueued: string[] = [];
    const jobs = [];
    for (let i = 0; i < 5; i += 1) jobs.push(await create(accountId, capOf(2), 'google_maps', (ids) => enqueued.push(...ids)));

    expect(jobs.map((job) => job.held)).toEqual([false, false, true, true, true]);
    expect(enqueued).toEqual([jobs[0]!.jobId, jobs[1]!.jobId]);
    expect(await heldJobCount(db, accountId, 'google_maps')).toBe(3);
    // A held job reads as any queued job: the consumer sees nothing of the mechanism.
    expect(await findJob(db, jobs[4]!.jobId)).toMatchObject({ status: 'queued', startedAt: null });
    expect(await releasedAt(jobs[4]!.jobId)).toBeNull();

    expect((await create(other.accountId, capOf(2))).held).toBe(false);
    expect((await create(accountId, capOf(2), 'linkedin')).held).toBe(false);
  });

  it('when a released job settles, then the account’s oldest held job is released in the same statement and returned to enqueue; then the next, in creation order', async () => {
    const { accountId } = await buildAccount(db);
    const jobs = await createInOrder(accountId, capOf(2), 5);
    const [a, b, c, d, e] = jobs.map((job) => job.jobId) as [string, string, string, string, string];

    await startJob(db, a, 'sandbox');
    const first = await recordSettlement(db, a, { kind: 'finished' }, undefined, capOf(2));
    expect(first).toMatchObject({ settled: true, releasedJobIds: [c] });
    expect(await releasedAt(c)).not.toBeNull();
    expect(await releasedAt(d)).toBeNull();

    const second = await recordSettlement(db, b, { kind: 'cancelled' }, undefined, capOf(2));
    expect(second?.releasedJobIds).toEqual([d]);
    expect((await recordSettlement(db, c, { kind: 'finished' }, undefined, capOf(2)))?.releasedJobIds).toEqual([e]);
    // Nothing held is left; a further settlement releases nothing.
    expect((await recordSettlement(db, d, { kind: 'finished' }, undefined, capOf(2)))?.releasedJobIds).toEqual([]);
    // Settled again (terminal already): nothing changes and nothing is released.
    expect(await recordSettlement(db, d, { kind: 'cancelled' }, undefined, capOf(2))).toMatchObject({ settled: false, releasedJobIds: [] });
  });

  it('when a held job is cancelled, then it ends CANCELLED, free, with no slot freed and nothing else released', async () => {
    const { accountId } = await buildAccount(db, { credits: 1000 });
    const jobs = [];
    for (let i = 0; i < 3; i += 1) jobs.push(await create(accountId, capOf(1)));
    const [, held, last] = jobs.map((job) => job.jobId) as [string, string, string];

    const cancelled = await recordSettlement(db, held, { kind: 'cancelled' }, undefined, capOf(1));
    expect(cancelled).toMatchObject({ settled: true, releasedJobIds: [] });
    expect(cancelled?.job).toMatchObject({ status: 'CANCELLED', stopReason: 'cancelled_by_owner', creditsCharged: 0 });
    expect(await releasedAt(last)).toBeNull();
    expect(await heldJobCount(db, accountId, 'google_maps')).toBe(1);
    // Its reservation is back: only the two others' remain reserved.
    expect(await creditSummary(db, accountId)).toMatchObject({ reserved: 2 * reservationFor('google_maps', 5) });
  });

  it('when a held job is withdrawn (its queue refused it: @leadgen/commands createJob), then the job and its reservation are gone', async () => {
    const { accountId } = await buildAccount(db, { credits: 1000 });
    await create(accountId, capOf(1));
    const jobId = newId.job();
    const held = await insertJob(db, {
      accountId,
      idempotencyKey: jobId,
      fingerprint: jobId,
      idempotencyTtlHours: 1,
      jobId,
      resultSetId: newId.resultSet(),
      request: { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 5 },
      creditsReserved: 10,
      share: capOf(1),
    });
    expect(held).toMatchObject({ kind: 'created', held: true, released: [] });
    await withdrawJob(db, jobId);
    expect(await findJob(db, jobId)).toBeNull();
    expect(await creditSummary(db, accountId)).toMatchObject({ reserved: 10 });
  });

  it('when 20 jobs of one account are created at once, then exactly the cap is released, whatever the interleaving', async () => {
    const { accountId } = await buildAccount(db);
    const created = await Promise.all(Array.from({ length: 20 }, () => create(accountId, capOf(3))));
    expect(created.filter((job) => !job.held)).toHaveLength(3);
    expect(await heldJobCount(db, accountId, 'google_maps')).toBe(17);
  });

  it('when an account is at its share, then a creation keeps the job held without waiting for the release’s lock; under its share it waits for it', async () => {
    const { accountId } = await buildAccount(db);
    for (let i = 0; i < 2; i += 1) expect((await create(accountId, capOf(2))).held).toBe(false);
    // Another transaction holds the account's release lock (a settlement releasing, say).
    const locker = await db.sql.connect();
    try {
      await locker.query('BEGIN');
      await locker.query("SELECT pg_advisory_xact_lock(hashtextextended('release_held_jobs:' || $1 || ':google_maps', 0))", [accountId]);
      const atShare = await Promise.race([create(accountId, capOf(2)), new Promise<'waited'>((r) => setTimeout(() => r('waited'), 3_000))]);
      expect(atShare).toMatchObject({ held: true });
      // A cap of 3 leaves room: that creation releases, so it waits for the lock, then releases the oldest held job.
      const released: string[] = [];
      const underShare = create(accountId, capOf(3), 'google_maps', (ids) => released.push(...ids));
      expect(await Promise.race([underShare, new Promise<'waited'>((r) => setTimeout(() => r('waited'), 500))])).toBe('waited');
      await locker.query('COMMIT');
      expect(await underShare).toMatchObject({ held: true });
      expect(released).toEqual([(atShare as { jobId: string }).jobId]);
    } finally {
      locker.release();
    }
  });

  it('when a job settles while its account has nothing held, then the settlement does not wait for the release’s lock; with a job held it does, and releases it', async () => {
    const { accountId } = await buildAccount(db);
    const [a, b] = [await create(accountId, capOf(2)), await create(accountId, capOf(2))];
    await startJob(db, a.jobId, 'sandbox');
    const locker = await db.sql.connect();
    const waited = (ms: number) => new Promise<'waited'>((r) => setTimeout(() => r('waited'), ms));
    // Another transaction holds the account's release lock (a creation or a settlement releasing, say).
    const lock = async () => {
      await locker.query('BEGIN');
      await locker.query("SELECT pg_advisory_xact_lock(hashtextextended('release_held_jobs:' || $1 || ':google_maps', 0))", [accountId]);
    };
    try {
      await lock();
      const idle = await Promise.race([recordSettlement(db, a.jobId, { kind: 'finished' }, undefined, capOf(2)), waited(3_000)]);
      expect(idle).toMatchObject({ settled: true, releasedJobIds: [] });
      await locker.query('COMMIT');
      // Now one is held (b and c fill the share): b's settlement has something to release, so it takes the lock.
      const c = await create(accountId, capOf(2));
      const held = await create(accountId, capOf(2));
      expect([c.held, held.held]).toEqual([false, true]);
      await lock();
      const busy = recordSettlement(db, b.jobId, { kind: 'cancelled' }, undefined, capOf(2));
      expect(await Promise.race([busy, waited(500)])).toBe('waited');
      await locker.query('COMMIT');
      expect(await busy).toMatchObject({ settled: true, releasedJobIds: [held.jobId] });
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
    }
  });

  it('when a job is created under its account’s share with nothing held, or at its share, then the jobs row is written once (inserted released, or held), not inserted and then updated', async () => {
    const { accountId } = await buildAccount(db);
    const client = await db.sql.connect();
    // Rows this session wrote to the jobs table (pg_stat_xact_user_tables: the session's counts not yet flushed to the
    // cumulative statistics, which include earlier transactions' at times), read as the difference since `since`.
    const counted = async () =>
      (
        await client.query<{ inserted: number; updated: number }>(
          `SELECT n_tup_ins::int AS inserted, n_tup_upd::int AS updated FROM pg_stat_xact_user_tables WHERE relname = 'jobs'`,
        )
      ).rows[0] ?? { inserted: 0, updated: 0 };
    let since = { inserted: 0, updated: 0 };
    const writes = async () => {
      const now = await counted();
      return { inserted: now.inserted - since.inserted, updated: now.updated - since.updated };
    };
    try {
      await client.query('BEGIN');
      since = await counted();
      expect(await insertJobWithin(client, db, newJob(accountId, capOf(1)))).toMatchObject({ kind: 'created', held: false });
      expect(await writes()).toEqual({ inserted: 1, updated: 0 });
      const second = await insertJobWithin(client, db, newJob(accountId, capOf(1)));
      expect(second).toMatchObject({ kind: 'created', held: true });
      expect(await writes()).toEqual({ inserted: 2, updated: 0 });
      await client.query('COMMIT');
      await new Promise((resolve) => setTimeout(resolve, 2)); // a later creation time (millisecond precision)

      // Under a larger share with a job held: the older held job goes first (release_held_jobs updates it), the new one waits.
      await client.query('BEGIN');
      since = await counted();
      const third = await insertJobWithin(client, db, newJob(accountId, capOf(2)));
      expect(third).toMatchObject({ kind: 'created', held: true, released: [(second as { jobId: string }).jobId] });
      expect(await writes()).toEqual({ inserted: 1, updated: 1 });
      await client.query('COMMIT');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('when the cap is 0, then every job is released at once and nothing is held', async () => {
    const { accountId } = await buildAccount(db);
    const created = [];
    for (let i = 0; i < 6; i += 1) created.push(await create(accountId, capOf(0)));
    expect(created.every((job) => !job.held)).toBe(true);
    expect(await heldJobCount(db, accountId, 'google_maps')).toBe(0);
  });

  it('when a slot is free with jobs still held (a settlement that released none), then the sweep’s release finds the account and releases oldest first up to the cap', async () => {
    const { accountId } = await buildAccount(db);
    const jobs = await createInOrder(accountId, capOf(1), 4);
    const ids = jobs.map((job) => job.jobId);
    // Settled without the cap (the previous release's form does this): nothing released.
    expect((await recordSettlement(db, ids[0]!, { kind: 'cancelled' }))?.releasedJobIds).toEqual([]);
    expect(await accountsWithHeldJobs(db, 'google_maps', 10_000)).toContain(accountId);

    expect(await markReleased(db, accountId, 'google_maps', capOf(1))).toEqual([ids[1]]);
    expect(await markReleased(db, accountId, 'google_maps', capOf(1))).toEqual([]);
    // A raised cap releases the rest, in order.
    expect(await markReleased(db, accountId, 'google_maps', capOf(5))).toEqual([ids[2], ids[3]]);
    expect(await accountsWithHeldJobs(db, 'google_maps', 10_000)).not.toContain(accountId);
  });

  it('when the lost-job sweep looks for open jobs without an entry, then a held job is not one (it has none on purpose) but a released one is', async () => {
    const { accountId } = await buildAccount(db);
    const released = await create(accountId, capOf(1), 'shopify');
    const held = await create(accountId, capOf(1), 'shopify');
    const still = await stillOpenJobs(db, ['shopify'], new Date(Date.now() + 60_000), 10_000);
    const ids = still.map((job) => job.id);
    expect(ids).toContain(released.jobId);
    expect(ids).not.toContain(held.jobId);
  });

  it('when a held job is started anyway (an entry made for it elsewhere), then it counts as released from then on', async () => {
    const { accountId } = await buildAccount(db);
    await create(accountId, capOf(1));
    const held = await create(accountId, capOf(1));
    expect((await startJob(db, held.jobId, 'sandbox'))?.job).toMatchObject({ status: 'running' });
    expect(await releasedAt(held.jobId)).not.toBeNull();
    // Two open released now, over the cap of 1: a third waits until both have ended.
    const third = await create(accountId, capOf(1));
    expect(third.held).toBe(true);
  });
});

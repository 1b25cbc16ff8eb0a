import { heldJobCount, recordSettlement } from '@leadgen/db';
import { lostJobQueue } from '@leadgen/queue';
import { generate, pollUntilTerminal, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';
import { releaseStrandedHeldJobs } from '../src/release-held-jobs';
import { requeueLostJobs } from '../src/requeue-lost-jobs';
import { startWorker } from '../src/start-worker';

// Fair queues (docs/decisions/020-fair-queues.md), with the real API, worker, PostgreSQL and Redis. The slow
// jobs use the sandbox's `delay=MS` keyword (docs/api.md, "Sandbox": MS of latency per page of 10 leads).

const slow = (delayMs: number, maxResults = 10) => ({ category: 'dentist', state: 'US', maxResults, keyword: `sandbox:delay=${delayMs}` });
const quick = { category: 'dentist', state: 'US', maxResults: 5 };

async function openReleased(world: TestWorld, accountId: string): Promise<number> {
  const { rows } = await world.db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND status IN ('queued', 'running') AND released_at IS NOT NULL`,
    [accountId],
  );
  return rows[0]!.n;
}

async function cancelAll(world: TestWorld, account: TestAccount, jobIds: string[]): Promise<void> {
  for (const jobId of jobIds) await world.http.delete(`/api/v1/leads/jobs/${jobId}`).set(account.auth);
}

describe('one account’s backlog and another account’s job', () => {
  let world: TestWorld;
  beforeAll(async () => {
    // The defaults that matter: QUEUE_OPEN_JOBS_PER_ACCOUNT (4) below one worker's WORKER_CONCURRENCY (5).
    world = await startWorld({ env: { WORKER_CONCURRENCY: '5', QUEUE_OPEN_JOBS_PER_ACCOUNT: '' } });
  });
  afterAll(() => world.close());

  it('when one account has 100 slow jobs waiting, then another account’s quick generate still answers 200 in the same call, well before one slow job could end', async () => {
    expect(world.config.queue.share).toBe(4);
    const heavy = await buildAccount(world.db, { credits: 100_000 });
    const other = await buildAccount(world.db);
    const backlog: string[] = [];
    for (let i = 0; i < 100; i += 1) {
      const res = await generate(world, heavy, slow(30_000), { Prefer: 'respond-async' });
      expect(res.status).toBe(202);
      backlog.push(res.body.jobId as string);
    }
    try {
      // Only the cap is in the queue; the rest wait in PostgreSQL and read as any queued job.
      expect(await openReleased(world, heavy.accountId)).toBe(4);
      expect(await heldJobCount(world.db, heavy.accountId, 'google_maps')).toBe(96);
      const held = await world.http.get(`/api/v1/leads/jobs/${backlog[99]}`).set(heavy.auth);
      expect(held.body).toMatchObject({ status: 'queued', startedAt: null });

      for (let i = 0; i < 3; i += 1) {
        const started = Date.now();
        const res = await generate(world, other, quick);
        const ms = Date.now() - started;
        // First come, first served, it would queue behind 96 jobs of 30 s on 5 slots: a 202 after SYNC_WAIT_MS.
        expect({ status: res.status, fast: ms < 3_000 }).toEqual({ status: 200, fast: true });
        expect(res.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 5 });
      }
    } finally {
      await cancelAll(world, heavy, backlog);
    }
  }, 120_000);

  it('when a held job is cancelled, then it answers CANCELLED at once, is never started, and the account’s other jobs go on', async () => {
    const account = await buildAccount(world.db);
    const jobs: string[] = [];
    for (let i = 0; i < 6; i += 1)
      jobs.push((await generate(world, account, slow(300, 20), { Prefer: 'respond-async' })).body.jobId as string);
    const last = jobs[5]!;
    expect(await heldJobCount(world.db, account.accountId, 'google_maps')).toBe(2);

    const cancelled = await world.http.delete(`/api/v1/leads/jobs/${last}`).set(account.auth);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', startedAt: null, creditsCharged: 0 });
    expect(cancelled.body.terminal).toMatchObject({ status: 'CANCELLED', deliveredCount: 0, stopReason: 'cancelled_by_owner' });
    // DELETE is idempotent for it too.
    expect((await world.http.delete(`/api/v1/leads/jobs/${last}`).set(account.auth)).status).toBe(200);

    for (const jobId of jobs.slice(0, 5)) expect((await pollUntilTerminal(world, account, jobId, 30_000)).terminal.status).toBe('COMPLETE');
    const after = await world.http.get(`/api/v1/leads/jobs/${last}`).set(account.auth);
    expect(after.body).toMatchObject({ status: 'CANCELLED', startedAt: null, progress: { deliveredCount: 0 } });
  }, 60_000);

  it('when a held job is asked for synchronously, then the call waits for its release and answers 200 if it ends in time, 202 otherwise', async () => {
    const account = await buildAccount(world.db);
    const ahead: string[] = [];
    for (let i = 0; i < 4; i += 1)
      ahead.push((await generate(world, account, slow(400), { Prefer: 'respond-async' })).body.jobId as string);
    const waited = await generate(world, account, quick, { Prefer: 'wait=20' });
    expect(waited.status).toBe(200);
    expect(waited.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 5 });

    for (let i = 0; i < 4; i += 1)
      ahead.push((await generate(world, account, slow(2_000), { Prefer: 'respond-async' })).body.jobId as string);
    const tooLong = await generate(world, account, quick, { Prefer: 'wait=1' });
    expect(tooLong.status).toBe(202);
    expect(tooLong.body.status).toBe('queued');
    expect((await pollUntilTerminal(world, account, tooLong.body.jobId as string, 30_000)).terminal.status).toBe('COMPLETE');
  }, 60_000);
});

describe('held jobs released in order', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ env: { WORKER_CONCURRENCY: '5', QUEUE_OPEN_JOBS_PER_ACCOUNT: '1' } });
  });
  afterAll(() => world.close());

  it('when an account’s cap is 1, then its jobs run one at a time, in the order they were created', async () => {
    const account = await buildAccount(world.db);
    const jobs: string[] = [];
    for (let i = 0; i < 4; i += 1) jobs.push((await generate(world, account, slow(150), { Prefer: 'respond-async' })).body.jobId as string);
    const done = [];
    for (const jobId of jobs) done.push(await pollUntilTerminal(world, account, jobId, 30_000));
    for (let i = 1; i < done.length; i += 1) {
      // Released by its predecessor's settlement: started after that one finished.
      expect(Date.parse(done[i].startedAt)).toBeGreaterThanOrEqual(Date.parse(done[i - 1].finishedAt));
    }
  }, 60_000);
});

describe('nothing held is stranded', () => {
  // The sweeps are called here as the worker's periodic sweep calls them, with its clock set back so that only
  // this test's backdated jobs are old enough: a short LOST_JOB_AFTER_MS would take other test files' jobs.
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { QUEUE_OPEN_JOBS_PER_ACCOUNT: '1' } });
  });
  afterAll(() => world.close());

  const backdate = (jobId: string) =>
    world.db.sql.query(`UPDATE jobs SET updated_at = now() - interval '5 minutes' WHERE id = $1`, [jobId]);

  it('when Redis loses every entry and a process dies between a settlement’s release and its enqueue, then the lost-job sweep and the settlements still run every job', async () => {
    const account = await buildAccount(world.db);
    const jobs: string[] = [];
    for (let i = 0; i < 4; i += 1) jobs.push((await generate(world, account, quick, { Prefer: 'respond-async' })).body.jobId as string);
    const [first, second] = jobs as [string, string, string, string];
    const { producer } = world.api.deps;
    const queue = producer.queue('google_maps');
    expect(await queue.getJobState(first)).toBe('waiting');
    expect(await queue.getJobState(second)).toBe('unknown'); // held: no entry

    // Redis wiped.
    await queue.obliterate({ force: true });
    // A worker settled the first, released the second in that transaction, and died before enqueueing it.
    const settled = await recordSettlement(world.db, first, { kind: 'cancelled' }, undefined, world.config.queue.share);
    expect(settled?.releasedJobIds).toEqual([second]);
    expect(await queue.getJobState(second)).toBe('unknown');
    expect(await heldJobCount(world.db, account.accountId, 'google_maps')).toBe(2);

    // The second is the lost-job sweep's (released, still, no entry); the held ones are not (no entry on purpose).
    await Promise.all(jobs.map(backdate));
    const requeued = await requeueLostJobs(world.db, lostJobQueue(producer), ['google_maps'], Date.now() - 3 * 60_000);
    expect(requeued.filter((id) => jobs.includes(id))).toEqual([second]);

    // Its settlement releases the third, whose settlement releases the fourth.
    const worker = await startWorker(world.config);
    try {
      for (const jobId of jobs.slice(1)) expect((await pollUntilTerminal(world, account, jobId, 30_000)).terminal.status).toBe('COMPLETE');
    } finally {
      await worker.close();
    }
  }, 60_000);

  it('when a slot is free but no settlement released into it (a settlement of the previous release), then the sweep releases the held jobs, oldest first', async () => {
    const account = await buildAccount(world.db);
    const jobs: string[] = [];
    for (let i = 0; i < 3; i += 1) jobs.push((await generate(world, account, quick, { Prefer: 'respond-async' })).body.jobId as string);
    const first = jobs.shift()!;
    await world.api.deps.producer.queue('google_maps').remove(first);
    await recordSettlement(world.db, first, { kind: 'cancelled' });
    expect(await heldJobCount(world.db, account.accountId, 'google_maps')).toBe(2);

    // Only this test's held jobs are still for long enough: other test files' held jobs stay theirs.
    for (const jobId of jobs) await backdate(jobId);
    const released = await releaseStrandedHeldJobs(world.api.deps.lifecycle, 'google_maps', 4 * 60_000);
    expect(released.filter((id) => jobs.includes(id))).toEqual([jobs[0]]);
    expect(await world.api.deps.producer.queue('google_maps').getJobState(jobs[0]!)).toBe('waiting');

    const worker = await startWorker(world.config);
    try {
      for (const jobId of jobs) expect((await pollUntilTerminal(world, account, jobId, 30_000)).terminal.status).toBe('COMPLETE');
    } finally {
      await worker.close();
    }
  }, 60_000);
});

import { creditSummary } from '@leadgen/db';
import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('DELETE /api/v1/leads/jobs/{jobId} on a queued job (no worker running)', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
    account = await buildAccount(world.db, { credits: 10_000 });
  });
  afterAll(() => world.close());

  it('when the owner cancels a queued job, then 200 CANCELLED, nothing charged, and the queue entry is gone', async () => {
    const created = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 10 });
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('queued');
    const cancelled = await world.http.delete(`/api/v1/leads/jobs/${created.body.jobId}`).set(account.auth);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      status: 'CANCELLED',
      creditsCharged: 0,
      terminal: { status: 'CANCELLED', deliveredCount: 0, requestedCount: 10, stopReason: 'cancelled_by_owner' },
      leads: [],
    });
    const queue = world.api.deps.producer.queues().find((q) => q.name === 'google_maps')!;
    expect(await queue.getJob(created.body.jobId)).toBeUndefined();
    expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: 10_000, reserved: 0, available: 10_000 });
  });

  it('when it is cancelled twice, then the second DELETE answers 200 with the same body', async () => {
    const created = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 2 });
    const first = await world.http.delete(`/api/v1/leads/jobs/${created.body.jobId}`).set(account.auth);
    const second = await world.http.delete(`/api/v1/leads/jobs/${created.body.jobId}`).set(account.auth);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it('when another account cancels it, then 404 job_not_found and the job is untouched', async () => {
    const created = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 2 });
    const stranger = await buildAccount(world.db, { credits: 0 });
    const res = await world.http.delete(`/api/v1/leads/jobs/${created.body.jobId}`).set(stranger.auth);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('job_not_found');
    const mine = await world.http.get(`/api/v1/leads/jobs/${created.body.jobId}`).set(account.auth);
    expect(mine.body.status).toBe('queued');
  });
});

describe('DELETE on a running job and on a finished one', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld();
    account = await buildAccount(world.db, { credits: 10_000 });
  });
  afterAll(() => world.close());

  it('when a running job is cancelled, then it stops, keeps only what it had, is billed for that, and never becomes COMPLETE', async () => {
    const created = await generate(
      world,
      account,
      { category: 'gym', state: 'US', maxResults: 100, keyword: 'sandbox:delay=100' },
      { Prefer: 'respond-async' },
    );
    const jobId = created.body.jobId as string;
    await waitFor(async () => ((await world.db.job.findUnique({ where: { id: jobId } }))?.deliveredCount ?? 0) >= 20);
    const cancelled = await world.http.delete(`/api/v1/leads/jobs/${jobId}`).set(account.auth);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    const delivered = cancelled.body.terminal.deliveredCount as number;
    expect(delivered).toBeGreaterThanOrEqual(20);
    expect(delivered).toBeLessThan(100);
    expect(cancelled.body.leads).toHaveLength(delivered);
    expect(cancelled.body.creditsCharged).toBe(Math.max(2 * delivered, 10));

    // Long enough for several more pages had the worker not stopped.
    await new Promise((r) => setTimeout(r, 500));
    const later = await world.http.get(`/api/v1/leads/jobs/${jobId}`).set(account.auth);
    expect(later.body).toEqual(cancelled.body);
    expect(await world.db.lead.count({ where: { jobId } })).toBe(delivered);
    const ledger = await world.db.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
    expect(ledger.map((e) => [e.kind, e.amount])).toEqual([
      ['reserve', 200],
      ['release', 200],
      ['charge', Math.max(2 * delivered, 10)],
    ]);
  });

  it('when a finished job is cancelled, then 409 job_not_cancellable with its status', async () => {
    const created = await generate(world, account, { category: 'gym', state: 'US', maxResults: 3 });
    expect(created.body.status).toBe('COMPLETE');
    const res = await world.http.delete(`/api/v1/leads/jobs/${created.body.jobId}`).set(account.auth);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'job_not_cancellable', jobStatus: 'COMPLETE' });
  });
});

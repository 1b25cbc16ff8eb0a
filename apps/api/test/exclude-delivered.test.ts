import { listLeads } from '@leadgen/db';
import { generate, idempotencyKey, pollUntilTerminal, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount } from '../../../test/factories';

// The sandbox answers one search with the same leads every time (30 here), as a real upstream would.
const area = { category: 'dentist', state: 'US', city: 'Austin', keyword: 'sandbox:only=30' };
const keysOf = (leads: Array<{ businessName: string; address: string }>) => leads.map((l) => `${l.businessName}|${l.address}`);

describe('excludeDelivered: never paying twice for the same lead', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ env: { WORKER_CONCURRENCY: '4' } });
  });
  afterAll(() => world.close());

  it('when a second job over the same area excludes what was delivered, then it gets only new leads, billed only for those', async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    const first = await generate(world, account, { ...area, maxResults: 10 });
    expect(first.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 10 });
    expect(first.body.skipped).toEqual({ alreadyDelivered: 0, suppressed: 0, filtered: 0 });

    const second = await generate(world, account, { ...area, maxResults: 10, excludeDelivered: true });
    expect(second.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 10 });
    expect(second.body.skipped).toEqual({ alreadyDelivered: 10, suppressed: 0, filtered: 0 });
    expect(second.body.creditsCharged).toBe(20);
    const overlap = keysOf(second.body.leads).filter((key) => keysOf(first.body.leads).includes(key));
    expect(overlap).toEqual([]);

    // 30 exist, 20 delivered: asking for 25 more ends PARTIAL with the last 10.
    const third = await generate(world, account, { ...area, maxResults: 25, excludeDelivered: true });
    expect(third.body.terminal).toMatchObject({ status: 'PARTIAL', deliveredCount: 10, stopReason: 'source_exhausted' });
    expect(third.body.skipped).toEqual({ alreadyDelivered: 20, suppressed: 0, filtered: 0 });

    // Without the flag nothing is skipped: the account may buy a lead again if it asks to.
    const again = await generate(world, account, { ...area, maxResults: 5 });
    expect(again.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 5 });
  });

  it('when two excluding jobs of one account race over the same area, then no lead is delivered by both', async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    const racing = await Promise.all(
      Array.from({ length: 4 }, () =>
        generate(world, account, { ...area, maxResults: 12, excludeDelivered: true }, { Prefer: 'respond-async' }),
      ),
    );
    const jobs = await Promise.all(racing.map((res) => pollUntilTerminal(world, account, res.body.jobId)));
    const all = jobs.flatMap((job) => keysOf(job.leads));
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(30); // 4 × 12 asked, 30 exist: every one delivered once, to exactly one job
    expect(jobs.reduce((sum, job) => sum + job.skipped.alreadyDelivered, 0)).toBeGreaterThan(0);
    for (const job of jobs) expect(await listLeads(world.db, job.jobId)).toHaveLength(job.terminal.deliveredCount);
  });

  it('when excludeDelivered is false, then it is the same request as without it', async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    const key = idempotencyKey();
    const first = await generate(world, account, { ...area, maxResults: 3 }, { 'Idempotency-Key': key });
    const same = await generate(world, account, { ...area, maxResults: 3, excludeDelivered: false }, { 'Idempotency-Key': key });
    expect(same.get('Idempotent-Replayed')).toBe('true');
    expect(same.body.jobId).toBe(first.body.jobId);
    const wrongType = await generate(world, account, { ...area, excludeDelivered: 'yes' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors[0].pointer).toBe('#/excludeDelivered');
  });
});

import type { Queue } from '@leadgen/queue';
import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

async function settled(queue: Queue, jobId: string, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const state = await queue.getJobState(jobId);
    if (state === 'completed' || state === 'failed') return state;
    if (Date.now() > until) throw new Error(`entry still ${state}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("a queue entry's BullMQ outcome matches its job's terminal status", () => {
  let world: TestWorld;
  let account: TestAccount;
  let queue: Queue;
  beforeAll(async () => {
    world = await startWorld();
    account = await buildAccount(world.db, { credits: 10_000 });
    queue = world.api.deps.producer.queues().find((q) => q.name === 'google_maps')!;
  });
  afterAll(() => world.close());

  it('when a job is COMPLETE, then its entry completed with the terminal object, progress and a log line per committed slice', async () => {
    // Pages well over a second apart, as a real upstream's: progress is written at most once a second per job. (The
    // next page is asked for while one is finished and committed, so commits come less than a page's delay apart
    // when the first page's verification is slow, as its first load of the kept lists is on a busy machine.)
    const res = await generate(
      world,
      account,
      { category: 'bakery', state: 'FR', maxResults: 25, keyword: 'sandbox:delay=2000' },
      { Prefer: 'wait=20' },
    );
    expect(res.body.status).toBe('COMPLETE');
    expect(await settled(queue, res.body.jobId)).toBe('completed');
    const entry = (await queue.getJob(res.body.jobId))!;
    expect(entry.returnvalue).toEqual({
      jobId: res.body.jobId,
      status: 'COMPLETE',
      requestedCount: 25,
      deliveredCount: 25,
      stopReason: null,
      creditsCharged: 50,
      provider: 'sandbox',
      finishedAt: res.body.finishedAt,
      upstreamCalls: { sandbox: 3 },
    });
    expect(entry.progress).toEqual({ deliveredCount: 25, requestedCount: 25 });
    const { logs } = await queue.getJobLogs(res.body.jobId);
    expect(logs).toEqual([
      'slice 1: 10 lead(s) committed, 10/25 delivered',
      'slice 2: 10 lead(s) committed, 20/25 delivered',
      'slice 3: 5 lead(s) committed, 25/25 delivered',
    ]);
  });

  it('when pages come less than a second apart and the job runs past its first second, then every slice has its line, the last ones written at the end', async () => {
    const res = await generate(
      world,
      account,
      { category: 'bakery', state: 'FR', maxResults: 25, keyword: 'sandbox:delay=600' },
      { Prefer: 'wait=20' },
    );
    expect(res.body.status).toBe('COMPLETE');
    expect(await settled(queue, res.body.jobId)).toBe('completed');
    const { logs } = await queue.getJobLogs(res.body.jobId);
    expect(logs.join('\n').split('\n')).toEqual([
      'slice 1: 10 lead(s) committed, 10/25 delivered',
      'slice 2: 10 lead(s) committed, 20/25 delivered',
      'slice 3: 5 lead(s) committed, 25/25 delivered',
    ]);
    expect((await queue.getJob(res.body.jobId))!.progress).toEqual({ deliveredCount: 25, requestedCount: 25 });
  });

  it('when a job is done within its first second, then its entry has no log line, and its terminal object with its upstream calls', async () => {
    const res = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 5 });
    expect(res.body.status).toBe('COMPLETE');
    expect(await settled(queue, res.body.jobId)).toBe('completed');
    expect((await queue.getJobLogs(res.body.jobId)).logs).toEqual([]);
    expect((await queue.getJob(res.body.jobId))!.returnvalue).toMatchObject({
      status: 'COMPLETE',
      deliveredCount: 5,
      upstreamCalls: { sandbox: 1 },
    });
  });

  it('when a job is FAILED, then its entry failed once, unretried, its reason carrying the terminal object', async () => {
    const res = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 5, keyword: 'sandbox:fail' });
    expect(res.body).toMatchObject({ status: 'FAILED', terminal: { stopReason: 'provider_error' } });
    expect(await settled(queue, res.body.jobId)).toBe('failed');
    const entry = (await queue.getJob(res.body.jobId))!;
    expect(entry.attemptsMade).toBe(1);
    expect(entry.failedReason).toMatch(/^FAILED provider_error: /);
    expect(JSON.parse(entry.failedReason.replace(/^FAILED provider_error: /, ''))).toMatchObject({
      jobId: res.body.jobId,
      status: 'FAILED',
      deliveredCount: 0,
      stopReason: 'provider_error',
      creditsCharged: 0,
    });
  });

  it('when a job is EMPTY, then its entry completed with the terminal object', async () => {
    const res = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 5, keyword: 'sandbox:empty' });
    expect(res.body.status).toBe('EMPTY');
    expect(await settled(queue, res.body.jobId)).toBe('completed');
    expect((await queue.getJob(res.body.jobId))?.returnvalue).toMatchObject({ status: 'EMPTY', stopReason: 'no_results' });
  });
});

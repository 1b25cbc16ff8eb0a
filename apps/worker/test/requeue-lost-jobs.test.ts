import { recordSettlement } from '@leadgen/db';
import { lostJobQueue, type LostJobQueue } from '@leadgen/queue';
import { generate, pollUntilTerminal, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount } from '../../../test/factories';
import { requeueLostJobs } from '../src/requeue-lost-jobs';
import { startWorker } from '../src/start-worker';

describe('jobs whose queue entry was lost', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when Redis lost a queued job, then the sweep enqueues it again once, and a worker finishes it', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const lost = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 4 });
    const young = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 3 });
    expect(lost.status).toBe(202);
    const { producer } = world.api.deps;
    const queue = producer.queues().find((q) => q.name === 'google_maps')!;
    for (const res of [lost, young]) await queue.remove(res.body.jobId as string);
    await world.db.job.update({ where: { id: lost.body.jobId }, data: { updatedAt: new Date(Date.now() - 5 * 60_000) } });

    // The sweep's clock set 3 minutes back: only jobs older than 4 minutes, i.e. this test's backdated
    // ones, are considered, never the young jobs of test files running alongside.
    // (Left-overs of an earlier run against the same database may be swept too: only ours are checked.)
    const ours = [lost.body.jobId as string, young.body.jobId as string];
    const sweep = async (sources: Array<'google_maps' | 'linkedin'>) =>
      (await requeueLostJobs(world.db, lostJobQueue(producer), sources, Date.now() - 3 * 60_000)).filter((id) => ours.includes(id));
    expect(await sweep(['google_maps'])).toEqual([lost.body.jobId]);
    expect(await queue.getJobState(lost.body.jobId)).toBe('waiting');
    // Still waiting in its queue now: a second sweep leaves it alone.
    expect(await sweep(['google_maps'])).toEqual([]);
    // A sweep for other sources does not touch google_maps jobs.
    await world.db.job.update({ where: { id: young.body.jobId }, data: { updatedAt: new Date(Date.now() - 5 * 60_000) } });
    expect(await sweep(['linkedin'])).toEqual([]);

    const worker = await startWorker(world.config);
    try {
      const done = await pollUntilTerminal(world, account, lost.body.jobId);
      expect(done.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 4 });
    } finally {
      await worker.close();
    }
  });

  it("when a job finishes between the sweep's read and its look at the queue, then it is not enqueued again", async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const res = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 4 }, { Prefer: 'respond-async' });
    const jobId = res.body.jobId as string;
    const { producer } = world.api.deps;
    const queue = producer.queues().find((q) => q.name === 'google_maps')!;
    await queue.remove(jobId);
    await world.db.job.update({ where: { id: jobId }, data: { updatedAt: new Date(Date.now() - 5 * 60_000) } });
    // A worker settles the job just as the sweep asks the queue about it (its entry has completed by then).
    const lostJobs = lostJobQueue(producer);
    const racing: LostJobQueue = {
      ...lostJobs,
      async hasNoLiveEntry(source, payload) {
        if (payload.jobId === jobId) await recordSettlement(world.db, jobId, { kind: 'finished' });
        return lostJobs.hasNoLiveEntry(source, payload);
      },
    };
    const requeued = await requeueLostJobs(world.db, racing, ['google_maps'], Date.now() - 3 * 60_000);
    expect(requeued).not.toContain(jobId);
    expect(await queue.getJobState(jobId)).toBe('unknown');
  });
});

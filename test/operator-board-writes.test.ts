import { findJob } from '@leadgen/db';
import { lostJobQueue } from '@leadgen/queue';
import { requeueLostJobs } from '../apps/worker/src/requeue-lost-jobs';
import { generate, startWorld, type TestWorld } from './harness';
import { buildAccount, type TestAccount } from './factories';

const PASSWORD = 'correct horse battery';
const auth = `Basic ${Buffer.from(`operator:${PASSWORD}`).toString('base64')}`;

describe('Bull Board, read-only by default', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { OPERATOR_PASSWORD: PASSWORD } });
    account = await buildAccount(world.db, { credits: 1_000 });
  });
  afterAll(() => world.close());

  it('when OPERATOR_BOARD_WRITABLE is unset, then the queues say read-only and every write action is refused with 405', async () => {
    const queues = await world.http.get('/admin/queues/api/queues').set('Authorization', auth);
    expect((queues.body.queues as Array<{ readOnlyMode: boolean }>).every((q) => q.readOnlyMode)).toBe(true);
    const created = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 5 }, { Prefer: 'respond-async' });
    for (const path of [`google_maps/${created.body.jobId}/clean`, 'google_maps/clean/waiting', 'google_maps/obliterate', 'pause']) {
      const res = await world.http.put(`/admin/queues/api/queues/${path}`).set('Authorization', auth);
      expect(res.status).toBe(405);
    }
    const queue = world.api.deps.producer.queues().find((q) => q.name === 'google_maps')!;
    expect(await queue.getJobState(created.body.jobId)).toBe('waiting');
  });
});

describe('Bull Board with OPERATOR_BOARD_WRITABLE=1', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { OPERATOR_PASSWORD: PASSWORD, OPERATOR_BOARD_WRITABLE: '1' } });
    account = await buildAccount(world.db, { credits: 1_000 });
  });
  afterAll(() => world.close());

  it("when an operator removes a queued job's entry, then the job stays queued in PostgreSQL and the next lost-job sweep puts it back", async () => {
    const created = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 5 }, { Prefer: 'respond-async' });
    const jobId = created.body.jobId as string;
    const removed = await world.http.put(`/admin/queues/api/queues/google_maps/${jobId}/clean`).set('Authorization', auth);
    expect(removed.status).toBe(204);
    const queue = world.api.deps.producer.queues().find((q) => q.name === 'google_maps')!;
    expect(await queue.getJobState(jobId)).toBe('unknown');
    expect((await findJob(world.db, jobId))?.status).toBe('queued');
    // The sweep's view once LOST_JOB_AFTER_MS has passed since the job last moved.
    const stillForMs = world.config.worker.lostJobAfterMs;
    const requeued = await requeueLostJobs(
      world.db,
      lostJobQueue(world.api.deps.producer),
      ['google_maps'],
      Date.now() + stillForMs + 1,
      stillForMs,
    );
    expect(requeued).toContain(jobId);
    expect(await queue.getJobState(jobId)).toBe('waiting');
  });
});

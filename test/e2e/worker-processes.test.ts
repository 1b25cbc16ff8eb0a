import type { ChildProcess } from 'node:child_process';
import { generate, pollUntilTerminal, startWorkerProcess, startWorld, type TestWorld, type WorkerProcess } from '../harness';
import { buildAccount, type TestAccount } from '../factories';

// Real worker processes, started as an operator would start them, killed as a machine would kill them.

// Short lock and stalled-check settings, so a killed worker's job moves on within seconds.
function startWorker(world: TestWorld, env: Record<string, string> = {}): WorkerProcess {
  return startWorkerProcess({
    DATABASE_URL: world.config.database.url,
    REDIS_URL: world.config.redis.url,
    QUEUE_PREFIX: world.config.redis.queuePrefix,
    WORKER_QUEUES: 'google_maps',
    WORKER_LOCK_MS: '1500',
    WORKER_STALLED_CHECK_MS: '500',
    SANDBOX_PAGE_DELAY_MS: '5',
    ...env,
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function deliveredCount(world: TestWorld, jobId: string): Promise<number> {
  return (await world.db.job.findUniqueOrThrow({ where: { id: jobId } })).deliveredCount;
}

async function waitForDelivered(world: TestWorld, jobId: string, atLeast: number): Promise<void> {
  const until = Date.now() + 20_000;
  while ((await deliveredCount(world, jobId)) < atLeast) {
    if (Date.now() > until) throw new Error(`job ${jobId} did not reach ${atLeast} leads`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function expectWholeAndBilledOnce(world: TestWorld, account: TestAccount, jobId: string): Promise<void> {
  const done = await pollUntilTerminal(world, account, jobId, 30_000);
  expect(done.terminal).toMatchObject({ status: 'COMPLETE', requestedCount: 60, deliveredCount: 60 });
  const leads = await world.db.lead.findMany({ where: { jobId }, orderBy: { position: 'asc' } });
  expect(leads).toHaveLength(60);
  expect(new Set(leads.map((l) => l.dedupKey)).size).toBe(60);
  expect(leads.map((l) => l.position)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  const ledger = await world.db.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
  expect(ledger.map((e) => [e.kind, e.amount])).toEqual([
    ['reserve', 120],
    ['release', 120],
    ['charge', 120],
  ]);
}

describe('worker processes', () => {
  let world: TestWorld;
  let account: TestAccount;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    world = await startWorld({ worker: false });
    account = await buildAccount(world.db, { credits: 10_000 });
  });
  // Each test starts its own workers and stops them, so a leftover worker never takes the next test's job.
  afterEach(async () => {
    const running = children.splice(0).filter((c) => c.exitCode === null && c.signalCode === null);
    for (const child of running) child.kill('SIGTERM');
    await Promise.all(running.map(exited));
  });
  afterAll(() => world.close());

  it('when a worker is killed with SIGKILL mid-job, then another resumes it and the job finishes whole, billed once', async () => {
    const first = startWorker(world);
    children.push(first);
    await first.ready;
    const created = await generate(
      world,
      account,
      { category: 'dentist', state: 'US', maxResults: 60, keyword: 'sandbox:delay=150' },
      { Prefer: 'respond-async' },
    );
    const jobId = created.body.jobId as string;
    await waitForDelivered(world, jobId, 20);
    first.kill('SIGKILL');
    await exited(first);
    const frozen = await deliveredCount(world, jobId);
    expect(frozen).toBeLessThan(60);

    const second = startWorker(world);
    children.push(second);
    await second.ready;
    await expectWholeAndBilledOnce(world, account, jobId);
  }, 60_000);

  it('when a worker gets SIGTERM mid-job, then it hands the job back, exits 0, and the next worker finishes it', async () => {
    const first = startWorker(world, { SHUTDOWN_GRACE_MS: '200' });
    children.push(first);
    await first.ready;
    const created = await generate(
      world,
      account,
      { category: 'dentist', state: 'CA', maxResults: 60, keyword: 'sandbox:delay=150' },
      { Prefer: 'respond-async' },
    );
    const jobId = created.body.jobId as string;
    await waitForDelivered(world, jobId, 10);
    first.kill('SIGTERM');
    expect(await exited(first)).toBe(0);
    const queue = world.api.deps.producer.queues().find((q) => q.name === 'google_maps')!;
    expect(await (await queue.getJob(jobId))?.getState()).toBe('waiting');

    const second = startWorker(world);
    children.push(second);
    await second.ready;
    await expectWholeAndBilledOnce(world, account, jobId);
  }, 60_000);

  it('when the worker of an excluding job is killed mid-job, then the resumed job still delivers only leads the account did not have, each once', async () => {
    const first = startWorker(world);
    children.push(first);
    await first.ready;
    const area = { category: 'plumber', state: 'US', city: 'Denver', keyword: 'sandbox:only=90;delay=150' };
    const earlier = await generate(world, account, { ...area, maxResults: 20 }, { Prefer: 'wait=30' });
    expect(earlier.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 20 });
    const created = await generate(world, account, { ...area, maxResults: 60, excludeDelivered: true }, { Prefer: 'respond-async' });
    const jobId = created.body.jobId as string;
    await waitForDelivered(world, jobId, 20);
    first.kill('SIGKILL');
    await exited(first);

    const second = startWorker(world);
    children.push(second);
    await second.ready;
    const done = await pollUntilTerminal(world, account, jobId, 30_000);
    expect(done.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 60 });
    expect(done.skipped).toEqual({ alreadyDelivered: 20, suppressed: 0, filtered: 0 });
    const keys = (body: { leads: Array<{ businessName: string; address: string }> }) =>
      body.leads.map((l) => `${l.businessName}|${l.address}`);
    expect(new Set(keys(done)).size).toBe(60);
    expect(keys(done).filter((key) => keys(earlier.body).includes(key))).toEqual([]);
  }, 60_000);
});

import { randomBytes } from 'node:crypto';
import type { LeadProvider } from '@leadgen/providers';
import { shardOfAccount } from '@leadgen/queue';
import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';
import { sleep } from '../../../test/faults/fault-world';
import { createLeadConsumers, SlotGate, type LeadConsumers } from '../src/lead-consumers';

// A worker's consumers of a source in QUEUE_SHARDS shards (decision 048), on one Redis node: one BullMQ Worker per
// shard, sharing the source's WORKER_CONCURRENCY slots (SlotGate), every shard served, each job run once, and one
// account's backlog still held in PostgreSQL behind its share (decision 020) while another account's job runs.

const SHARDS = 3;
const CONCURRENCY = 2;
const SHARE = 2;

/** Each job ends EMPTY after a while (and, while `hold` is set, not before it resolves), its runs counted. */
function slowProvider(ms: number) {
  const seen = { running: 0, most: 0, runs: 0, hold: null as Promise<void> | null };
  const provider: LeadProvider<'google_maps'> = {
    source: 'google_maps',
    name: 'slow',
    // eslint-disable-next-line require-yield
    async *search() {
      seen.running += 1;
      seen.runs += 1;
      seen.most = Math.max(seen.most, seen.running);
      try {
        await seen.hold;
        await sleep(ms);
      } finally {
        seen.running -= 1;
      }
    },
  };
  return { provider, seen };
}

describe('the slot gate', () => {
  it('when slots are taken, then a waiter gets the next one released, a closed gate answers false, and only a waiter makes it contended', async () => {
    const gate = new SlotGate(1);
    expect(await gate.acquire(false)).toBe(true);
    expect(await gate.acquire(false)).toBe(false);
    const waiting = gate.acquire(true);
    expect(gate.contended).toBe(true);
    gate.release();
    expect(await waiting).toBe(true);
    expect(gate.contended).toBe(false);
    const closed = gate.acquire(true);
    gate.close();
    expect(await closed).toBe(false);
    expect(await gate.acquire(true)).toBe(false);
  });
});

describe('a worker consuming a source of three shards', () => {
  let world: TestWorld;
  let consumers: LeadConsumers | null = null;
  const { provider, seen } = slowProvider(150);
  beforeAll(async () => {
    world = await startWorld({
      worker: false,
      env: {
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX ?? 'test'}-wshards-${randomBytes(4).toString('hex')}`,
        QUEUE_SHARDS: String(SHARDS),
        WORKER_CONCURRENCY: String(CONCURRENCY),
        QUEUE_OPEN_JOBS_PER_ACCOUNT: String(SHARE),
      },
    });
  });
  afterAll(async () => {
    await consumers?.close();
    const { producer } = world.api.deps;
    await Promise.all(producer.queues().map((queue) => queue.obliterate({ force: true })));
    await world.close();
  });

  /** accounts until every shard has one */
  async function accountsOverEveryShard(): Promise<TestAccount[]> {
    const byShard = new Map<number, TestAccount>();
    while (byShard.size < SHARDS) {
      const account = await buildAccount(world.db, { credits: 10_000 });
      byShard.set(shardOfAccount(account.accountId, SHARDS), account);
    }
    return [...byShard.values()];
  }

  async function terminal(jobIds: string[], timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const open = await world.db.job.count({ where: { id: { in: jobIds }, status: { in: ['queued', 'running'] } } });
      if (open === 0) return;
      if (Date.now() > until) throw new Error(`${open} job(s) not terminal`);
      await sleep(50);
    }
  }

  it('when accounts of every shard send jobs, then each shard is served, at most WORKER_CONCURRENCY run at once, and each job runs once', async () => {
    consumers = createLeadConsumers([provider], { config: world.config, db: world.db, lifecycle: world.api.deps.lifecycle });
    expect(consumers.workers.map((w) => w.name)).toEqual(['google_maps', 'google_maps.1', 'google_maps.2']);
    const completed = new Map<string, string[]>();
    for (const worker of consumers.workers)
      worker.on('completed', (entry) => completed.set(entry.id!, [...(completed.get(entry.id!) ?? []), worker.name]));
    await consumers.start();

    const accounts = await accountsOverEveryShard();
    const jobs: Array<{ id: string; account: TestAccount }> = [];
    for (const account of accounts)
      for (const n of [1, 2]) {
        const res = await generate(
          world,
          account,
          { source: 'google_maps', category: `shard ${n}`, state: 'US', maxResults: 5 },
          { Prefer: 'respond-async' },
        );
        expect(res.status).toBe(202);
        jobs.push({ id: res.body.jobId as string, account });
      }
    await terminal(jobs.map((j) => j.id));

    expect(seen.runs).toBe(jobs.length);
    expect(seen.most).toBe(CONCURRENCY);
    const until = Date.now() + 5_000;
    while (completed.size < jobs.length && Date.now() < until) await sleep(25);
    for (const { id, account } of jobs) {
      const shard = shardOfAccount(account.accountId, SHARDS);
      expect(completed.get(id)).toEqual([shard === 0 ? 'google_maps' : `google_maps.${shard}`]);
    }
  }, 60_000);

  it("when one account's backlog is past its share, then the rest waits in PostgreSQL, and another account's job is queued at once and starts before that backlog", async () => {
    const [big, small] = await accountsOverEveryShard();
    // The running jobs do not end until everything is created: what is held then is known.
    let letGo = () => {};
    seen.hold = new Promise((resolve) => (letGo = resolve));
    const backlog: string[] = [];
    for (let n = 0; n < 8; n++) {
      const res = await generate(
        world,
        big!,
        { source: 'google_maps', category: `backlog ${n}`, state: 'US', maxResults: 5 },
        { Prefer: 'respond-async' },
      );
      backlog.push(res.body.jobId as string);
    }
    const other = await generate(
      world,
      small!,
      { source: 'google_maps', category: 'other', state: 'US', maxResults: 5 },
      { Prefer: 'respond-async' },
    );
    const otherId = other.body.jobId as string;
    // Held then: the backlog's jobs not yet released into big's shard.
    const held = (await world.db.job.findMany({ where: { id: { in: backlog }, releasedAt: null }, select: { id: true } })).map((j) => j.id);
    expect(held).toHaveLength(8 - SHARE);
    expect((await world.db.job.findUniqueOrThrow({ where: { id: otherId } })).releasedAt).not.toBeNull();
    await sleep(300);
    seen.hold = null;
    letGo();
    await terminal([otherId, ...backlog]);
    const otherStart = (await world.db.job.findUniqueOrThrow({ where: { id: otherId } })).startedAt!;
    const heldStarts = await world.db.job.findMany({ where: { id: { in: held } }, select: { startedAt: true } });
    // The first slot freed went to the other account's shard, which waited for one, not to the backlog's next job.
    expect(heldStarts.filter((j) => j.startedAt! < otherStart)).toEqual([]);
  }, 60_000);
});

import { randomBytes } from 'node:crypto';
import type { Source } from '@leadgen/domain';
import type { LeadProvider } from '@leadgen/providers';
import { openLeadQueues, type LeadQueues } from '@leadgen/queue';
import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount } from '../../../test/factories';
import { sleep } from '../../../test/faults/fault-world';
import { createLeadConsumers, type LeadConsumers } from '../src/lead-consumers';

// The idle-slot filler's count of a worker's busy slots (borrow-idle-slots.ts, lead-consumers.ts): an entry this
// process took from the wait list must never be in neither count, whichever of two replies (BullMQ's moveToActive or
// moveToCompleted, the filler's wait-list count) is read first. Driven through a real BullMQ worker whose replies are
// held back after Redis ran the call, as a loaded process reads them late.

// Nothing to search: each job ends EMPTY at once.
const empty: LeadProvider<'google_maps'> = {
  source: 'google_maps',
  name: 'empty',
  // eslint-disable-next-line require-yield
  async *search() {
    return;
  },
};

describe('a worker’s busy slots as the idle-slot filler counts them', () => {
  const prefix = `${process.env.QUEUE_PREFIX ?? 'test'}-slots-${randomBytes(4).toString('hex')}`;
  let world: TestWorld;
  let queues: LeadQueues;
  let consumers: LeadConsumers | null = null;
  beforeAll(async () => {
    world = await startWorld({
      worker: false,
      env: { QUEUE_PREFIX: `h-slots-${randomBytes(4).toString('hex')}`, WORKER_CONCURRENCY: '1' },
    });
    queues = openLeadQueues(world.config.redis);
  });
  afterAll(async () => {
    await consumers?.close();
    // this file's own queue prefix: its keys go with it
    const keys = await queues.connection.keys(`${prefix}*`);
    if (keys.length > 0) await queues.connection.unlink(...keys);
    await queues.close();
    await world.close();
  });

  it('when Redis has moved an entry to active but its reply is not read yet, then the slot is already busy; and a job taken by the completion of another is counted before that one’s slot is freed', async () => {
    const events: string[] = [];
    const counts = { active: 0, asking: 0 };
    const slots = {
      started: (_source: Source) => void ((counts.active += 1), events.push('started')),
      ended: (_source: Source) => void ((counts.active -= 1), events.push('ended')),
      asking: (_source: Source) => {
        counts.asking += 1;
        events.push('asking');
        return () => void (counts.asking -= 1);
      },
    };
    consumers = createLeadConsumers([empty], { config: world.config, db: world.db, lifecycle: world.api.deps.lifecycle }, slots);
    const worker = consumers.workers[0]! as unknown as { backend: { moveToActive: (...args: unknown[]) => Promise<unknown[]> } };
    // Each moveToActive reply is held back 300 ms after Redis ran it (and recorded what the counts were then).
    const backend = worker.backend;
    const moveToActive = backend.moveToActive.bind(backend);
    const atReply: Array<{ waiting: number; busy: number; took: boolean }> = [];
    backend.moveToActive = async (...args: unknown[]) => {
      const reply = await moveToActive(...args);
      if (reply[0]) {
        atReply.push({ waiting: await queues.queue('google_maps').getWaitingCount(), busy: counts.active + counts.asking, took: true });
        await sleep(300);
      }
      return reply;
    };
    await consumers.start();

    const account = await buildAccount(world.db, { credits: 1_000 });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const res = await generate(
        world,
        account,
        { source: 'google_maps', category: `slots ${n}`, state: 'US', maxResults: 5 },
        { Prefer: 'respond-async' },
      );
      ids.push(res.body.jobId as string);
    }
    const until = Date.now() + 20_000;
    while (events.filter((e) => e === 'ended').length < 3 && Date.now() < until) await sleep(50);

    // The entry had left the wait list (Redis ran the call) while its reply was unread, and the slot counted busy.
    expect(atReply.length).toBeGreaterThanOrEqual(1);
    for (const seen of atReply) expect(seen.busy).toBeGreaterThanOrEqual(1);
    // With one slot, each later job was taken by its predecessor's moveToCompleted: counted started before the
    // predecessor's slot was freed, so the count never dropped to 0 while a job was held.
    expect(events.filter((e) => e !== 'asking')).toEqual(['started', 'started', 'ended', 'started', 'ended', 'ended']);
    expect(counts).toEqual({ active: 0, asking: 0 });
  }, 60_000);
});

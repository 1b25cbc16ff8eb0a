import {
  createWebhookConsumer,
  createWebhookProducer,
  redisKeys,
  producerConnection,
  closeRedis,
  waitUntilConnected,
  type WebhookProducer,
} from '@leadgen/queue';
import { testConfig } from '../../../test/harness';

// Issue 31, finding 2 (the bench's "webhook tarpit" row): one queue serves every account, taken first come, first
// served, so an account settling hundreds of jobs put hundreds of deliveries ahead of another account's one. Each entry
// now has its turn among its account's entries not yet taken (a BullMQ priority): another account's goes next.
const config = testConfig();
const keys = redisKeys(config.redis);
let producer: WebhookProducer;

beforeAll(() => {
  producer = createWebhookProducer(config.redis, 'test-webhook-turns');
});
afterAll(async () => {
  await producer.queue().obliterate({ force: true });
  await producer.close();
});

/** Takes every entry with one slot, in the order the queue gives them, until `count` were taken. */
async function takeAll(count: number): Promise<string[]> {
  const taken: string[] = [];
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const consumer = createWebhookConsumer(
    async (job) => {
      taken.push(job.data.deliveryId);
      if (taken.length === count) done();
      return {};
    },
    { redis: config.redis, concurrency: 1, lockMs: 5_000, stalledCheckMs: 5_000 },
  );
  void consumer.run();
  await Promise.race([all, new Promise((_, reject) => setTimeout(() => reject(new Error(`${taken.length} of ${count} taken`)), 30_000))]);
  await consumer.close();
  return taken;
}

describe('webhook entries take turns among accounts', () => {
  it("when one account has 200 deliveries waiting, then another account's delivery enqueued after them is taken before the attacker's 100th", async () => {
    const flood = Array.from({ length: 200 }, (_, i) => `dlv_flood_${i}`);
    // As a worker settling job after job would: a few at a time.
    for (let i = 0; i < flood.length; i += 20) await producer.enqueue(flood.slice(i, i + 20), 0, 'acct_flood');
    await producer.enqueue(['dlv_other'], 0, 'acct_other');
    // Each account's next entry is in the wait list (what KEDA counts), the flood's others wait their turn; the
    // queue-depth metric counts them all.
    expect(await producer.queue().getJobCounts('waiting', 'prioritized')).toEqual({ waiting: 2, prioritized: 199 });
    expect((await producer.counts()).webhooks).toEqual({ waiting: 201, active: 0, delayed: 0 });
    const taken = await takeAll(201);
    const other = taken.indexOf('dlv_other');
    expect(other).toBeGreaterThanOrEqual(0);
    expect(other).toBeLessThan(2);
    // The flooding account's own deliveries keep their order.
    expect(taken.filter((id) => id !== 'dlv_other')).toEqual(flood);
    // Every entry taken gave its turn back: the next delivery of the flooding account is first in line again.
    const redis = producerConnection(config.redis);
    try {
      await waitUntilConnected(redis, 5_000);
      expect(Number((await redis.get(keys.account('acct_flood').webhookWaiting)) ?? 0)).toBe(0);
    } finally {
      await closeRedis(redis);
    }
  }, 60_000);
});

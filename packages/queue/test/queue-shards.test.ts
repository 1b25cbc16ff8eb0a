import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { loadConfig } from '@leadgen/config';
import {
  createJobProducer,
  findEntry,
  lostJobQueue,
  parseShardQueueName,
  QUEUE_NAMES,
  shardOfAccount,
  shardQueueName,
  type JobProducer,
} from '../src';

// A source's queue in QUEUE_SHARDS shards (decision 048), on one Redis node: where an account's jobs go, and that the
// producer's lookups by job (a cancel, the lost-job sweep) find an entry in any shard still consumed.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `${process.env.QUEUE_PREFIX ?? 'lgtest'}-shards-${randomBytes(4).toString('hex')}`;
const SHARDS = 4;

/** an account id whose jobs go to `shard` among SHARDS */
function accountIn(shard: number): string {
  for (;;) {
    const id = `acc_${randomBytes(8).toString('hex')}`;
    if (shardOfAccount(id, SHARDS) === shard) return id;
  }
}
const jobId = () => `job_${randomBytes(12).toString('hex')}`;

describe('shard names and the hash of an account', () => {
  it('when a source has one shard, then its queue keeps its name; past it each shard has a name of its own, read back to its source', () => {
    expect(shardQueueName('google_maps', 0)).toBe(QUEUE_NAMES.google_maps);
    expect(shardQueueName('google_maps', 3)).toBe('google_maps.3');
    expect(parseShardQueueName('google_maps.3')).toEqual({ source: 'google_maps', shard: 3 });
    expect(parseShardQueueName('shopify')).toEqual({ source: 'shopify', shard: 0 });
    expect(parseShardQueueName('webhooks')).toBeNull();
    expect(parseShardQueueName('google_maps.0')).toBeNull();
  });

  it('when accounts are hashed, then the shard is the same every time, 0 with one shard, and 4,000 accounts spread evenly', () => {
    // FNV-1a (32 bits), its published test vectors: a change of the hash, which would strand queued jobs, fails here.
    expect([shardOfAccount('a', 1_000_000_000), shardOfAccount('foobar', 1_000_000_000)]).toEqual([0xe40c292c % 1e9, 0xbf9cf968 % 1e9]);
    expect(shardOfAccount('acc_x', 1)).toBe(0);
    const per = new Array<number>(SHARDS).fill(0);
    for (let i = 0; i < 4_000; i++) per[shardOfAccount(`acc_${randomBytes(8).toString('hex')}`, SHARDS)]! += 1;
    for (const n of per) expect(n).toBeGreaterThan(850);
  });
});

describe('the producer with QUEUE_SHARDS=4', () => {
  let producer: JobProducer;
  beforeAll(async () => {
    producer = createJobProducer(loadConfig({ REDIS_URL, QUEUE_PREFIX: prefix, QUEUE_SHARDS: String(SHARDS) }).redis);
    await producer.waitUntilReady(2000);
  });
  afterAll(async () => {
    await Promise.all(producer.queues().map((queue) => queue.obliterate({ force: true })));
    await producer.close();
  });

  it("when jobs of accounts of different shards are enqueued, then each is in its account's shard, and the counts and the board see every shard", async () => {
    const a = accountIn(0);
    const b = accountIn(2);
    const [a1, b1, b2] = [jobId(), jobId(), jobId()];
    await producer.enqueueReleased('shopify', a, [a1]);
    await producer.enqueueReleased('shopify', b, [b1, b2]);
    const [s0, , s2] = producer.shardsOf('shopify');
    expect(s0!.name).toBe('shopify');
    expect(await s0!.getJobState(a1)).toBe('waiting');
    expect(await s2!.getJobState(b1)).toBe('waiting');
    expect(await s2!.getJobState(b2)).toBe('waiting');
    expect(await s0!.getJobState(b1)).toBe('unknown');
    expect(producer.queue('shopify', b)).toBe(s2);
    expect(() => producer.queue('shopify')).toThrow(/4 shards/);
    expect((await producer.counts()).shopify).toEqual({ waiting: 3, active: 0, delayed: 0 });
    expect(await producer.waiting('shopify')).toBe(3);
    expect(producer.queues().map((q) => q.name)).toContain('shopify.3');
    expect(producer.queues()).toHaveLength(SHARDS * Object.keys(QUEUE_NAMES).length);
  });

  it('when a waiting job of a non-zero shard is cancelled, then its entry is removed', async () => {
    const account = accountIn(3);
    const id = jobId();
    await producer.enqueueReleased('linkedin', account, [id]);
    expect(await producer.removeWaiting('linkedin', account, id)).toBe(true);
    expect(await producer.shardsOf('linkedin')[3]!.getJob(id)).toBeUndefined();
  });

  it('when an entry sits in a shard other than its account’s (QUEUE_SHARDS was raised since), then a cancel and the sweep still find it there', async () => {
    const account = accountIn(1);
    const id = jobId();
    // As the previous release of one shard added it: in shard 0.
    await producer.shardsOf('google_maps')[0]!.add('google_maps', { jobId: id, accountId: account, source: 'google_maps' }, { jobId: id });
    expect((await findEntry(producer, 'google_maps', account, id))?.queueName).toBe('google_maps');
    const sweep = lostJobQueue(producer);
    expect(await sweep.hasNoLiveEntry('google_maps', { jobId: id, accountId: account })).toBe(false);
    expect(await producer.removeWaiting('google_maps', account, id)).toBe(true);
    expect(await sweep.hasNoLiveEntry('google_maps', { jobId: id, accountId: account })).toBe(true);
  });

  it("when the sweep requeues a lost job of a non-zero shard, then it lands in its account's shard again", async () => {
    const account = accountIn(2);
    const id = jobId();
    await lostJobQueue(producer).requeue('google_maps', { jobId: id, accountId: account });
    expect(await producer.shardsOf('google_maps')[2]!.getJobState(id)).toBe('waiting');
  });

  it('when QUEUE_SHARDS=1, then the queue and its keys are the ones a deployment before shards used', async () => {
    const one = createJobProducer(loadConfig({ REDIS_URL, QUEUE_PREFIX: prefix }).redis);
    try {
      const before = new Queue(QUEUE_NAMES.google_maps, { connection: one.connection, prefix });
      expect(one.shardsOf('google_maps').map((q) => q.keys)).toEqual([before.keys]);
      expect(one.queue('google_maps', accountIn(3)).keys).toEqual(before.keys);
      await before.close();
    } finally {
      await one.close();
    }
  });
});

import { randomBytes } from 'node:crypto';
import { loadConfig } from '@leadgen/config';
import { createDatabase, creditSummary, findJob, insertMonitor, type Database } from '@leadgen/db';
import { newId, type GenerationRequest, type Source } from '@leadgen/domain';
import {
  channels,
  createJobProducer,
  producerConnection,
  redisKeys,
  subscribeJobEvents,
  waitUntilConnected,
  closeRedis,
} from '@leadgen/queue';
import type { JobEventSubscription, JobProducer } from '@leadgen/queue';
import { buildAccount } from '../../../test/factories';
import { createBatch, createJob, createLifecycle, requestFingerprint, settleJob, startManualRun, type Lifecycle } from '../src';

// The one after-commit step (after-commit.ts), seen from each entry point of a job's life: what PostgreSQL
// released is in its queue, what is left held nudges the fleet once per source, and a creation whose queue
// refuses it is withdrawn. Real PostgreSQL and Redis, on queues of this file's own prefix that no worker reads.

const config = loadConfig({ ...process.env, QUEUE_PREFIX: `lgtest-${randomBytes(5).toString('hex')}` });
let db: Database;
let producer: JobProducer;
let subscription: JobEventSubscription;
const nudges: Source[] = [];
/** the lifecycle with a share of 1: an account's second open job of a source is held */
let lc: Lifecycle;

beforeAll(async () => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 6 });
  producer = createJobProducer(config.redis);
  lc = { ...createLifecycle({ db, config, queue: producer, events: producer }), share: 1 };
  subscription = subscribeJobEvents(config.redis, { onHeld: (source) => nudges.push(source) });
  // The subscription is not awaited by its maker: wait until Redis counts it.
  const redis = producerConnection(config.redis, 'after-commit-test');
  await waitUntilConnected(redis, 5_000);
  const channel = channels(redisKeys(config.redis)).jobHeld;
  for (let until = Date.now() + 5_000; Date.now() < until; await sleep(20))
    if (((await redis.call('PUBSUB', 'NUMSUB', channel)) as [string, number])[1] >= 1) break;
  await closeRedis(redis);
});
afterAll(async () => {
  await subscription.close();
  await Promise.all(producer.queues().map((queue) => queue.obliterate({ force: true })));
  await producer.close();
  await db.$disconnect();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** the nudges heard while `step` ran and a moment after (a nudge is not awaited by its sender) */
async function nudgedBy<T>(step: () => Promise<T>): Promise<{ result: T; heard: Source[] }> {
  const from = nudges.length;
  const result = await step();
  await sleep(300);
  return { result, heard: nudges.slice(from) };
}
const state = (source: Source, jobId: string) => producer.queue(source).getJobState(jobId);
const request = (source: Source = 'google_maps'): GenerationRequest => ({ source, category: 'dentist', state: 'US', maxResults: 5 });
const create = (accountId: string, source: Source = 'google_maps') =>
  createJob(lc, { accountId, idempotencyKey: newId.job(), request: request(source) });

describe('the after-commit step of each entry point', () => {
  it('when a job is created under its share, then it is in its queue and nobody is nudged; past its share, it is held and its source is nudged once', async () => {
    const { accountId } = await buildAccount(db);
    const first = await nudgedBy(() => create(accountId));
    expect(first.result).toMatchObject({ kind: 'created', held: false });
    if (first.result.kind !== 'created') return;
    expect(await state('google_maps', first.result.jobId)).toBe('waiting');
    expect(first.heard).toEqual([]);

    const second = await nudgedBy(() => create(accountId));
    expect(second.result).toMatchObject({ kind: 'created', held: true });
    if (second.result.kind !== 'created') return;
    expect(await state('google_maps', second.result.jobId)).toBe('unknown');
    expect(second.heard).toEqual(['google_maps']);

    // Its settlement releases the held one into the place it freed, and the step enqueues it.
    const settled = await nudgedBy(() => settleJob(lc, first.result.kind === 'created' ? first.result.jobId : '', { kind: 'cancelled' }));
    expect(settled.result.untold).toEqual([]);
    expect(settled.result.settlement?.releasedJobIds).toEqual([second.result.jobId]);
    expect(await state('google_maps', second.result.jobId)).toBe('waiting');
    expect(settled.heard).toEqual([]);
  });

  it('when a batch is created, then its children are released under the share and enqueued, and each source left holding one is nudged once', async () => {
    const { accountId } = await buildAccount(db);
    const requests = [request(), request(), request(), request('linkedin')];
    const batch = await nudgedBy(() =>
      createBatch(lc, {
        accountId,
        idempotencyKey: newId.job(),
        fingerprint: requestFingerprint({ requests }),
        name: null,
        excludeDelivered: false,
        maxCredits: null,
        webhookUrl: null,
        requests,
      }),
    );
    expect(batch.result.kind).toBe('created');
    if (batch.result.kind !== 'created') return;
    const { rows } = await db.sql.query<{ id: string; source: Source; released: boolean }>(
      'SELECT id, source::text AS source, released_at IS NOT NULL AS released FROM jobs WHERE batch_id = $1 ORDER BY batch_index',
      [batch.result.batchId],
    );
    expect(rows.map((row) => [row.source, row.released])).toEqual([
      ['google_maps', true],
      ['google_maps', false],
      ['google_maps', false],
      ['linkedin', true],
    ]);
    for (const row of rows) expect(await state(row.source, row.id)).toBe(row.released ? 'waiting' : 'unknown');
    expect(batch.heard).toEqual(['google_maps']);
  });

  it("when a monitor's manual run is created past the account's share, then it is held and nudges once, as a generate's job", async () => {
    const { accountId } = await buildAccount(db);
    await create(accountId, 'shopify');
    const monitor = await insertMonitor(
      db,
      {
        id: newId.monitor(),
        accountId,
        name: 'after-commit',
        request: request('shopify'),
        schedule: { every: 'PT1H' },
        webhookUrl: null,
        maxCreditsPerRun: null,
        enabled: false,
        nextRunAt: null,
      },
      10,
    );
    if (monitor === 'limit') throw new Error('limit');
    const run = await nudgedBy(() => startManualRun(lc, accountId, monitor.id, 'k1'));
    expect(run.result).toMatchObject({ kind: 'created', batchId: null });
    if (run.result.kind !== 'created' || !run.result.jobId) return;
    expect(await state('shopify', run.result.jobId)).toBe('unknown');
    expect(run.heard).toEqual(['shopify']);
  });

  it('when the queue refuses a new job, then the creation is withdrawn: 503, no job, no reservation, and nothing nudged or counted', async () => {
    const { accountId } = await buildAccount(db, { credits: 100 });
    // A Redis that is not there: nothing listens on port 9 of loopback.
    const away = createJobProducer(loadConfig({ ...process.env, REDIS_URL: 'redis://127.0.0.1:9' }).redis);
    try {
      const refused = { ...lc, queue: away };
      const jobId = newId.job();
      const attempt = nudgedBy(() => createJob(refused, { accountId, idempotencyKey: jobId, request: request(), jobId }));
      await expect(attempt).rejects.toMatchObject({ status: 503 });
      expect(await findJob(db, jobId)).toBeNull();
      expect(await creditSummary(db, accountId)).toEqual({ balance: 100, reserved: 0, available: 100 });
    } finally {
      await away.close().catch(() => undefined);
    }
  });
});

import { startApi } from '../../apps/api/src/start-api';
import { requeueLostJobs } from '../../apps/worker/src/requeue-lost-jobs';
import { startWorker } from '../../apps/worker/src/start-worker';
import { lostJobQueue, QUEUE_NAMES, redisKeys, shardOfAccount, slotOf, WEBHOOK_QUEUE_NAME } from '@leadgen/queue';
import type { ReadinessReport } from '@leadgen/ops';
import { generate, startWorld, testConfig, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startLocalCluster, startLocalSentinels, type LocalCluster, type LocalSentinels } from '../redis-topologies';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver';

// The service against a real Redis Cluster and a real Sentinel set (decision 023): a job, a cancel,
// a webhook and the lost-job sweep, each through the topology's own client, and readiness.

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

// linkedin is left to the sweep's scenario: no worker takes its jobs.
const WORLD_ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WORKER_QUEUES: 'google_maps,shopify,webhooks' };

function scenarios(name: string, world: () => TestWorld, receiver: () => WebhookReceiver) {
  it(`when a job is generated on ${name}, then a worker completes it and the API answers it synchronously`, async () => {
    const account = await buildAccount(world().db, { credits: 1_000 });
    const res = await generate(world(), account, { category: 'dentist', state: 'US', maxResults: 5 });
    expect(res.status).toBe(200);
    expect(res.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 5 });
  });

  it(`when a running job is cancelled on ${name}, then the worker holding it stops and it ends CANCELLED`, async () => {
    const account = await buildAccount(world().db, { credits: 10_000 });
    const created = await generate(
      world(),
      account,
      { category: 'gym', state: 'US', maxResults: 100, keyword: 'sandbox:delay=100' },
      { Prefer: 'respond-async' },
    );
    const jobId = created.body.jobId as string;
    await waitFor(async () => ((await world().db.job.findUnique({ where: { id: jobId } }))?.deliveredCount ?? 0) >= 10);
    const cancelled = await world().http.delete(`/api/v1/leads/jobs/${jobId}`).set(account.auth);
    expect(cancelled.status).toBe(200);
    const delivered = cancelled.body.terminal.deliveredCount as number;
    expect(delivered).toBeLessThan(100);
    // The cancel message reached the worker: no page lands after the settlement.
    await new Promise((r) => setTimeout(r, 400));
    expect(await world().db.lead.count({ where: { jobId } })).toBe(delivered);
  });

  it(`when a job ends on ${name}, then its webhook is delivered once`, async () => {
    const account = await buildAccount(world().db, { credits: 1_000 });
    const path = `/${name.replace(/\W/g, '-')}`;
    const endpoint = await world()
      .http.post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: receiver().url(path), events: ['job.completed'] });
    expect(endpoint.status).toBe(201);
    const res = await generate(world(), account, { category: 'dentist', state: 'US', maxResults: 3 });
    const [delivery] = await receiver().waitFor(1, (r) => r.path === path);
    expect(JSON.parse(delivery!.body).data.jobId).toBe(res.body.jobId);
  });

  it(`when ${name} lost a queued job, then the sweep enqueues it again, and a cancel removes that entry`, async () => {
    const account = await buildAccount(world().db, { credits: 1_000 });
    // No worker serves linkedin here (WORKER_QUEUES): the job stays queued.
    const res = await generate(world(), account, { source: 'linkedin', category: 'cto', state: 'DE', maxResults: 4 });
    expect(res.status).toBe(202);
    const jobId = res.body.jobId as string;
    const { producer } = world().api.deps;
    const queue = producer.queue('linkedin');
    await queue.remove(jobId);
    expect(await queue.getJobState(jobId)).toBe('unknown');
    await world().db.job.update({ where: { id: jobId }, data: { updatedAt: new Date(Date.now() - 5 * 60_000) } });
    const requeued = await requeueLostJobs(world().db, lostJobQueue(producer), ['linkedin'], Date.now() - 3 * 60_000);
    expect(requeued).toContain(jobId);
    expect(await queue.getJobState(jobId)).toBe('waiting');
    const cancelled = await world().http.delete(`/api/v1/leads/jobs/${jobId}`).set(account.auth);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(await queue.getJobState(jobId)).toBe('unknown');
  });

  it(`when readiness is asked on ${name}, then both processes are ready`, async () => {
    expect(await world().api.readiness()).toMatchObject({ ready: true, checks: { redis: 'ok' } });
    expect(await world().worker!.readiness()).toMatchObject({ ready: true, checks: { redis: 'ok' } });
  });
}

describe('on a Redis Cluster', () => {
  let cluster: LocalCluster;
  let world: TestWorld;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    cluster = await startLocalCluster();
    receiver = await startWebhookReceiver(() => ({ status: 200 }));
    world = await startWorld({ env: { ...cluster.env, ...WORLD_ENV } });
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await receiver?.close();
    cluster?.stop();
  });

  it('when the queues are opened, then each keeps its keys under a hash tag of its own, spread over the slots', () => {
    const queues = [...world.api.deps.producer.queues(), world.api.deps.webhooks.queue()];
    const prefix = world.config.redis.queuePrefix;
    expect(queues.map((q) => q.keys.wait)).toEqual(
      [...Object.values(QUEUE_NAMES), WEBHOOK_QUEUE_NAME].map((name) => `{${prefix}:${name}}:${name}:wait`),
    );
    for (const q of queues)
      expect(
        new Set(
          Object.values(q.keys)
            .filter(Boolean)
            .map((key) => slotOf(key!)),
        ).size,
      ).toBe(1);
    expect(new Set(queues.map((q) => slotOf(q.keys.wait!))).size).toBe(queues.length);
  });

  scenarios(
    'a cluster',
    () => world,
    () => receiver,
  );

  describe('with a source in QUEUE_SHARDS=8 shards (decision 048)', () => {
    const SHARDS = 8;
    const ASYNC = { Prefer: 'respond-async' };
    let sharded: TestWorld;
    beforeAll(async () => {
      // shopify consumed; linkedin left to the sweep's scenario, as above.
      sharded = await startWorld({ env: { ...cluster.env, ...WORLD_ENV, WORKER_QUEUES: 'shopify', QUEUE_SHARDS: String(SHARDS) } });
    }, 60_000);
    afterAll(() => sharded?.close());

    /** the cluster primary serving an account's shard of a source */
    const nodeOf = (source: 'shopify' | 'linkedin', account: TestAccount) =>
      cluster.primaryOf(sharded.api.deps.producer.queue(source, account.accountId).keys.wait!);

    it("when accounts send a source's jobs, then their shards' keys sit on more than one node, and every job completes once in its account's shard", async () => {
      const accounts: TestAccount[] = [];
      const nodes = new Set<number>();
      while (nodes.size < 2 || accounts.length < 4) {
        const account = await buildAccount(sharded.db, { credits: 10_000 });
        accounts.push(account);
        nodes.add(await nodeOf('shopify', account));
      }
      const jobs = await Promise.all(
        accounts.flatMap((account) =>
          [1, 2].map(async (n) => {
            const res = await generate(sharded, account, {
              source: 'shopify',
              category: `apparel spread ${n}`,
              state: 'US',
              maxResults: 3,
            });
            expect(res.status).toBe(200);
            expect(res.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 3 });
            return { id: res.body.jobId as string, account };
          }),
        ),
      );
      const { producer } = sharded.api.deps;
      for (const { id, account } of jobs) {
        const states = await Promise.all(producer.shardsOf('shopify').map((queue) => queue.getJobState(id)));
        const own = shardOfAccount(account.accountId, SHARDS);
        expect(states).toEqual(states.map((_, shard) => (shard === own ? 'completed' : 'unknown')));
      }
      expect(await sharded.db.lead.count({ where: { jobId: { in: jobs.map((j) => j.id) } } })).toBe(jobs.length * 3);
      const used = new Set(await Promise.all(accounts.map((account) => nodeOf('shopify', account))));
      expect(used.size).toBeGreaterThanOrEqual(2);
    });

    it("when one account's backlog is past its share, then it waits in PostgreSQL while another account's job goes to its own shard at once", async () => {
      const big = await buildAccount(sharded.db, { credits: 10_000 });
      let small = await buildAccount(sharded.db, { credits: 10_000 });
      while (shardOfAccount(small.accountId, SHARDS) === shardOfAccount(big.accountId, SHARDS))
        small = await buildAccount(sharded.db, { credits: 10_000 });
      // linkedin: nothing consumes it here, so what is queued stays where it was put.
      const backlog = [];
      for (let n = 0; n < sharded.config.queue.share + 3; n++)
        backlog.push(
          (await generate(sharded, big, { source: 'linkedin', category: `backlog ${n}`, state: 'DE', maxResults: 2 }, ASYNC)).body
            .jobId as string,
        );
      const other = (await generate(sharded, small, { source: 'linkedin', category: 'other', state: 'DE', maxResults: 2 }, ASYNC)).body
        .jobId as string;
      const { producer } = sharded.api.deps;
      expect(await producer.queue('linkedin', small.accountId).getJobState(other)).toBe('waiting');
      const released = await sharded.db.job.count({ where: { id: { in: backlog }, releasedAt: { not: null } } });
      expect(released).toBe(sharded.config.queue.share);
      expect((await producer.counts()).linkedin!.waiting).toBeGreaterThanOrEqual(sharded.config.queue.share + 1);
    });

    it('when a queued job of a non-zero shard is lost, then the sweep enqueues it in that shard again, and a cancel removes it', async () => {
      let account = await buildAccount(sharded.db, { credits: 1_000 });
      while (shardOfAccount(account.accountId, SHARDS) === 0) account = await buildAccount(sharded.db, { credits: 1_000 });
      const res = await generate(sharded, account, { source: 'linkedin', category: 'lost', state: 'DE', maxResults: 4 }, ASYNC);
      expect(res.status).toBe(202);
      const jobId = res.body.jobId as string;
      const { producer } = sharded.api.deps;
      const queue = producer.queue('linkedin', account.accountId);
      expect(queue.name).toBe(`linkedin.${shardOfAccount(account.accountId, SHARDS)}`);
      await queue.remove(jobId);
      expect(await queue.getJobState(jobId)).toBe('unknown');
      await sharded.db.job.update({ where: { id: jobId }, data: { updatedAt: new Date(Date.now() - 5 * 60_000) } });
      const requeued = await requeueLostJobs(sharded.db, lostJobQueue(producer), ['linkedin'], Date.now() - 3 * 60_000);
      expect(requeued).toContain(jobId);
      expect(await queue.getJobState(jobId)).toBe('waiting');
      const cancelled = await sharded.http.delete(`/api/v1/leads/jobs/${jobId}`).set(account.auth);
      expect(cancelled.body.status).toBe('CANCELLED');
      expect(await queue.getJobState(jobId)).toBe('unknown');
    });

    it("when readiness is asked, then every shard's slot answers", async () => {
      expect(await sharded.api.readiness()).toMatchObject({ ready: true, checks: { redis: 'ok' } });
      expect(await sharded.worker!.readiness()).toMatchObject({ ready: true, checks: { redis: 'ok' } });
    });
  });

  it('when the API is pointed at a cluster node as if it were one Redis, then /readyz says not ready and why', async () => {
    const config = testConfig({ QUEUE_PREFIX: world.config.redis.queuePrefix });
    const probeKey = `${redisKeys(config.redis).queuePrefix(QUEUE_NAMES.google_maps)}:${QUEUE_NAMES.google_maps}:readiness-probe`;
    const node = await cluster.nodeNotServing(probeKey);
    const api = await startApi(testConfig({ QUEUE_PREFIX: world.config.redis.queuePrefix, REDIS_URL: `redis://127.0.0.1:${node}` }));
    try {
      const report = await settledReadiness(() => api.readiness());
      expect(report).toMatchObject({ ready: false, checks: { redis: 'cluster_node' } });
      expect(report.detail).toContain('REDIS_CLUSTER_NODES');
    } finally {
      await api.close();
    }
  });

  it('when a worker is pointed at a cluster node as if it were one Redis, then its /readyz says not ready and why', async () => {
    const config = testConfig({ QUEUE_PREFIX: world.config.redis.queuePrefix, WORKER_QUEUES: 'google_maps' });
    const node = await cluster.nodeNotServing(`${config.redis.queuePrefix}:${QUEUE_NAMES.google_maps}:wait`);
    const worker = await startWorker(
      testConfig({ QUEUE_PREFIX: config.redis.queuePrefix, WORKER_QUEUES: 'google_maps', REDIS_URL: `redis://127.0.0.1:${node}` }),
    );
    try {
      expect(await settledReadiness(() => worker.readiness())).toMatchObject({ ready: false, checks: { redis: 'cluster_node' } });
    } finally {
      await worker.close();
    }
  });
});

/**
 * Readiness as Kubernetes reads it, probe after probe: just after start, on a machine busy enough that the
 * connection is not up within the probe's grace, Redis reads as `unavailable`; the reason follows once it is.
 */
async function settledReadiness(read: () => Promise<ReadinessReport>, withinMs = 10_000): Promise<ReadinessReport> {
  const until = Date.now() + withinMs;
  for (;;) {
    const report = await read();
    if (report.checks.redis !== 'unavailable' || Date.now() > until) return report;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('through Redis Sentinel', () => {
  let sentinels: LocalSentinels;
  let world: TestWorld;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    sentinels = await startLocalSentinels();
    receiver = await startWebhookReceiver(() => ({ status: 200 }));
    world = await startWorld({ env: { ...sentinels.env, ...WORLD_ENV } });
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await receiver?.close();
    sentinels?.stop();
  });

  scenarios(
    'sentinel',
    () => world,
    () => receiver,
  );
});

import type { ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { startWorker } from '../../apps/worker/src/start-worker';
import { requeueLostDeliveries } from '../../apps/worker/src/webhooks/webhook-outbox-sweep';
import { generate, startWorkerProcess, startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver';

// No event is lost: a worker killed while a receiver holds its request, and a queue entry Redis lost.

async function waitForStatus(world: TestWorld, deliveryId: string, status: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const delivery = await world.db.webhookDelivery.findUnique({
      where: { id: deliveryId },
      include: { attemptLog: { orderBy: { attempt: 'asc' } } },
    });
    if (delivery?.status === status) return delivery;
    if (Date.now() > until) throw new Error(`delivery ${deliveryId} is ${delivery?.status ?? 'missing'}, not ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('webhook recovery', () => {
  let world: TestWorld;
  let account: TestAccount;
  let receiver: WebhookReceiver;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    // The first request is held open (the worker sending it is killed meanwhile); the rest are answered.
    receiver = await startWebhookReceiver((_request, index) => (index === 0 ? 'hold' : { status: 200 }));
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await receiver?.close();
    await world?.close();
  });
  beforeEach(async () => {
    account = await buildAccount(world.db, { credits: 10_000 });
  });

  const workerEnv = (sources: string) => ({
    DATABASE_URL: world.config.database.url,
    REDIS_URL: world.config.redis.url,
    QUEUE_PREFIX: world.config.redis.queuePrefix,
    WORKER_QUEUES: sources,
    WORKER_LOCK_MS: '1500',
    WORKER_STALLED_CHECK_MS: '500',
    SANDBOX_PAGE_DELAY_MS: '5',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_TIMEOUT_MS: '10000',
  });

  it('when the worker delivering an event is SIGKILLed mid-request, then another worker delivers it, with the same webhook-id', async () => {
    const created = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: receiver.url('/killed'), events: ['job.completed'] });
    const first = startWorkerProcess(workerEnv('google_maps,webhooks'));
    children.push(first);
    await first.ready;
    const job = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 2 });
    expect(job.body.status).toBe('COMPLETE');
    const [held] = await receiver.waitFor(1, (r) => r.path === '/killed');
    first.kill('SIGKILL');

    const second = startWorkerProcess(workerEnv('webhooks'));
    children.push(second);
    await second.ready;
    const [, again] = await receiver.waitFor(2, (r) => r.path === '/killed');
    expect(again!.headers['webhook-id']).toBe(held!.headers['webhook-id']);
    expect(new Webhook(created.body.secret).verify(again!.body, again!.headers)).toMatchObject({
      type: 'job.completed',
      data: { jobId: job.body.jobId },
    });
    const delivery = await waitForStatus(world, held!.headers['webhook-id']!, 'succeeded');
    // The killed worker never recorded its attempt: the one kept is the one that was answered.
    expect(delivery.attemptLog.map((a) => [a.responseStatus, a.succeeded])).toEqual([[200, true]]);
    second.kill('SIGTERM');
  }, 60_000);

  it("when Redis lost a pending delivery's queue entry, then the outbox sweep enqueues it again and it is delivered", async () => {
    const created = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: receiver.url('/lost'), events: ['job.cancelled'] });
    const job = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 5 }, { Prefer: 'respond-async' });
    expect((await world.http.delete(`/api/v1/leads/jobs/${job.body.jobId}`).set(account.auth)).status).toBe(200);
    const [delivery] = await world.db.webhookDelivery.findMany({ where: { jobId: job.body.jobId } });
    const producer = world.api.deps.webhooks;
    // The cancel enqueued it; as if Redis had lost it since.
    expect(await producer.hasNoLiveEntry(delivery!.id)).toBe(false);
    await producer.queue().remove(delivery!.id);

    // This account's deliveries only: other test files' pending deliveries share the database.
    const sweep = (now: number) => requeueLostDeliveries(world.db, producer, { now, lostAfterMs: 60_000, accountId: account.accountId });
    expect(await sweep(Date.now())).toEqual([]); // not overdue yet
    expect(await sweep(Date.now() + 120_000)).toEqual([delivery!.id]);
    expect(await sweep(Date.now() + 120_000)).toEqual([]); // its entry lives now

    const worker = await startWorker(world.config);
    try {
      const [request] = await receiver.waitFor(1, (r) => r.path === '/lost');
      expect(request!.headers['webhook-id']).toBe(delivery!.id);
      expect(new Webhook(created.body.secret).verify(request!.body, request!.headers)).toMatchObject({ type: 'job.cancelled' });
      await waitForStatus(world, delivery!.id, 'succeeded');
    } finally {
      await worker.close();
    }
  });
});

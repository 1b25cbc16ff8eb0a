import { migrate } from '@leadgen/db';
import { Webhook } from 'standardwebhooks';
import { generate, startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver';
import { ownPostgres, ownRedis, sleep, startWorkerProcess, type WorkerProcess } from './fault-world';

// Webhooks lose no event when the stores fail (decision 016): Redis stopped and wiped mid-run (the
// queue's entries gone), then PostgreSQL restarted mid-run, on servers this test starts itself. Every
// job that ended has exactly one delivery per target, each reaches the receiver at least once with a
// valid signature, and no job that did not end has any.
const WEBHOOK_LOST_AFTER_MS = 2_000;
const WEBHOOK_SWEEP_MS = 1_000;
const LOST_JOB_AFTER_MS = 3_000;
const LOST_JOB_SWEEP_MS = 2_000;

describe('webhooks when the stores fail', () => {
  let postgres: Awaited<ReturnType<typeof ownPostgres>>;
  let redis: Awaited<ReturnType<typeof ownRedis>>;
  let world: TestWorld;
  let account: TestAccount;
  let receiver: WebhookReceiver;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    postgres = await ownPostgres();
    redis = await ownRedis();
    await migrate(postgres.url);
    const env = {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      LOST_JOB_AFTER_MS: String(LOST_JOB_AFTER_MS),
      LOST_JOB_SWEEP_MS: String(LOST_JOB_SWEEP_MS),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,2s,4s',
      WEBHOOK_LOST_AFTER_MS: String(WEBHOOK_LOST_AFTER_MS),
      WEBHOOK_SWEEP_MS: String(WEBHOOK_SWEEP_MS),
    };
    world = await startWorld({ worker: false, env });
    for (let i = 0; i < 2; i += 1) {
      workers.push(
        startWorkerProcess({
          ...env,
          QUEUE_PREFIX: world.config.redis.queuePrefix,
          WORKER_LOCK_MS: '1000',
          WORKER_STALLED_CHECK_MS: '500',
          WORKER_CONCURRENCY: '5',
        }),
      );
    }
    await Promise.all(workers.map((w) => w.ready));
    account = await buildAccount(world.db, { credits: 10_000_000 });
    receiver = await startWebhookReceiver();
  }, 60_000);

  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await receiver?.close();
    await world?.close();
    await redis?.stop();
    postgres?.stop();
  });

  async function submit(count: number): Promise<string[]> {
    const ids: string[] = [];
    while (ids.length < count) {
      const res = await generate(
        world,
        account,
        { category: 'dentist', state: 'US', maxResults: 20, keyword: 'sandbox:delay=200' },
        { Prefer: 'respond-async' },
      );
      if (res.status === 202) ids.push(res.body.jobId);
      else await sleep(200);
    }
    return ids;
  }

  // Each test adds its own endpoint (the earlier one stays subscribed): only that endpoint's deliveries are counted and verified.
  async function expectEveryEventDelivered(
    endpoint: { id: string; secret: string; path: string },
    jobIds: string[],
    timeoutMs: number,
  ): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await world.db.sql.query<{ status: string; deliveries: number; succeeded: number }>(
        `SELECT j.status::text AS status, count(d.id)::int AS deliveries, count(d.id) FILTER (WHERE d.status = 'succeeded')::int AS succeeded
         FROM jobs j LEFT JOIN webhook_deliveries d ON d.job_id = j.id AND d.endpoint_id = $2 WHERE j.id = ANY($1) GROUP BY j.id, j.status`,
        [jobIds, endpoint.id],
      );
      const done = rows.every((r) => r.status !== 'queued' && r.status !== 'running' && r.deliveries === 1 && r.succeeded === 1);
      if (done) break;
      // An open job has no event; an ended one exactly one.
      for (const r of rows) expect(r.deliveries).toBe(r.status === 'queued' || r.status === 'running' ? 0 : 1);
      if (Date.now() > until) throw new Error(`not every event delivered: ${JSON.stringify(rows.filter((r) => r.succeeded !== 1))}`);
      await sleep(250);
    }
    const seen = new Map<string, string>();
    for (const request of receiver.received.filter((r) => r.path === endpoint.path)) {
      const event = new Webhook(endpoint.secret).verify(request.body, request.headers) as { data: { jobId: string } };
      seen.set(event.data.jobId, request.headers['webhook-id']!);
    }
    for (const jobId of jobIds) expect([jobId, seen.has(jobId)]).toEqual([jobId, true]);
  }

  it('when Redis dies and comes back empty mid-run, then every job that ends still reaches the endpoint', async () => {
    const created = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: receiver.url('/redis'), events: ['job.completed', 'job.partial'] });
    expect(created.status).toBe(201);
    const ids = await submit(15);
    await sleep(1_500);
    await redis.stop();
    await sleep(1_500);
    await redis.start();
    await expectEveryEventDelivered({ id: created.body.id, secret: created.body.secret, path: '/redis' }, ids, 60_000);
  }, 120_000);

  it('when PostgreSQL restarts mid-run, then every job that ends still reaches the endpoint', async () => {
    const created = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: receiver.url('/postgres'), events: ['job.completed', 'job.partial'] });
    expect(created.status).toBe(201);
    const ids = await submit(15);
    await sleep(1_000);
    await postgres.restart();
    await expectEveryEventDelivered({ id: created.body.id, secret: created.body.secret, path: '/postgres' }, ids, 60_000);
  }, 120_000);
});

import { Webhook } from 'standardwebhooks';
import { startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../webhook-receiver';

// A monitor's events (decision 022): each run's terminal event names the monitor and reaches the
// monitor's webhookUrl; when the service pauses a monitor, monitor.paused says why, to the webhookUrl
// and to endpoints subscribed to it. Verified with `standardwebhooks`, as consumers do.

const request = { category: 'dentist', state: 'US', city: 'Austin', keyword: 'sandbox:only=3', maxResults: 3 };

async function defaultSecret(world: TestWorld, account: TestAccount): Promise<string> {
  const res = await world.http.post('/api/v1/webhooks/default-secret').set(account.auth);
  expect(res.status).toBe(200);
  return res.body.secret as string;
}

const verify = (secret: string, request: ReceivedWebhook) =>
  new Webhook(secret).verify(request.body, request.headers) as { type: string; timestamp: string; data: Record<string, unknown> };

describe('monitor webhooks', () => {
  let world: TestWorld;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    world = await startWorld({
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', MONITOR_MIN_INTERVAL_MS: '1000', MONITOR_SWEEP_MS: '500' },
    });
    receiver = await startWebhookReceiver(() => ({ status: 200 }));
  });
  afterAll(async () => {
    await receiver?.close();
    await world?.close();
  });

  it("when a monitor runs, then its run's terminal event carries monitorId and reaches the monitor's webhookUrl", async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const created = await world.http
      .post('/api/v1/monitors')
      .set(account.auth)
      .send({ name: 'hooked', request, schedule: { every: 'PT1S' }, webhookUrl: receiver.url('/monitor-runs') });
    expect(created.status).toBe(201);
    const id = created.body.monitorId as string;
    const [event] = await receiver.waitFor(1, (r) => r.path === '/monitor-runs');
    await world.http.patch(`/api/v1/monitors/${id}`).set(account.auth).send({ enabled: false });
    const body = verify(await defaultSecret(world, account), event!);
    expect(body).toMatchObject({ type: 'job.completed', data: { monitorId: id, status: 'COMPLETE', request: { excludeDelivered: true } } });
  });

  it("when a batch monitor runs, then its batch's terminal event carries monitorId and reaches the monitor's webhookUrl", async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const created = await world.http
      .post('/api/v1/monitors')
      .set(account.auth)
      .send({
        name: 'hooked batch',
        batch: { requests: [request, { ...request, city: 'Dallas' }] },
        schedule: { every: 'PT1S' },
        webhookUrl: receiver.url('/monitor-batches'),
      });
    expect(created.status).toBe(201);
    const id = created.body.monitorId as string;
    const [event] = await receiver.waitFor(1, (r) => r.path === '/monitor-batches');
    await world.http.patch(`/api/v1/monitors/${id}`).set(account.auth).send({ enabled: false });
    const secret = await defaultSecret(world, account);
    const body = verify(secret, event!);
    expect(body).toMatchObject({
      type: 'batch.completed',
      data: { monitorId: id, status: 'COMPLETE', childCount: 2, excludeDelivered: true },
    });
    // The children send no events of their own there: only the batch's terminal event reaches the monitor's webhookUrl.
    await new Promise((r) => setTimeout(r, 500));
    const types = receiver.received.filter((r) => r.path === '/monitor-batches').map((r) => verify(secret, r).type);
    expect(types.every((type) => type.startsWith('batch.'))).toBe(true);
  });

  it('when a tick finds the account short of credits, then the monitor is paused (insufficient_credits) and monitor.paused is sent', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const endpoint = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: receiver.url('/endpoint-paused'), events: ['monitor.paused'] });
    expect(endpoint.status).toBe(201);
    const created = await world.http
      .post('/api/v1/monitors')
      .set(account.auth)
      .send({ name: 'broke', request, schedule: { every: 'PT1S' }, webhookUrl: receiver.url('/monitor-paused') });
    const id = created.body.monitorId as string;

    const [own] = await receiver.waitFor(1, (r) => r.path === '/monitor-paused');
    const [subscribed] = await receiver.waitFor(1, (r) => r.path === '/endpoint-paused');
    const event = verify(await defaultSecret(world, account), own!);
    expect(event).toMatchObject({ type: 'monitor.paused', data: { monitorId: id, name: 'broke', reason: 'insufficient_credits' } });
    expect(verify(endpoint.body.secret, subscribed!).data).toEqual(event.data);

    const monitor = await world.http.get(`/api/v1/monitors/${id}`).set(account.auth);
    expect(monitor.body).toMatchObject({ enabled: false, pausedReason: 'insufficient_credits', nextRunAt: null });
    expect(monitor.body.lastRun).toMatchObject({ jobId: null, skipReason: 'insufficient_credits' });
    const jobs = await world.http.get('/api/v1/leads/jobs').set(account.auth);
    expect(jobs.body.items).toEqual([]);
  });
});

import { Webhook } from 'standardwebhooks';
import { generate, idempotencyKey, startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../webhook-receiver';

// Webhooks end to end (decision 016): the API, an in-process worker that delivers webhooks, and a
// local receiver that verifies every delivery with the `standardwebhooks` library consumers use.

const ALL_EVENTS = ['job.completed', 'job.partial', 'job.empty', 'job.failed', 'job.cancelled'];

function verify(secret: string, request: ReceivedWebhook): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(request.body, request.headers) as { type: string; timestamp: string; data: Record<string, unknown> };
}

async function createEndpoint(world: TestWorld, account: TestAccount, url: string, events = ALL_EVENTS) {
  const res = await world.http.post('/api/v1/webhooks').set(account.auth).send({ url, events, description: 'tests' });
  expect(res.status).toBe(201);
  expect(res.body.secret).toMatch(/^whsec_/);
  return res.body as { id: string; secret: string };
}

async function deliveries(world: TestWorld, account: TestAccount, endpointId: string) {
  const res = await world.http.get(`/api/v1/webhooks/${endpointId}/deliveries`).set(account.auth);
  expect(res.status).toBe(200);
  return res.body.items as Array<{
    id: string;
    eventType: string;
    status: string;
    jobId: string | null;
    attempts: Array<{ responseStatus: number | null; error: string | null; succeeded: boolean }>;
  }>;
}

async function waitForDelivery(world: TestWorld, account: TestAccount, endpointId: string, id: string, status: string) {
  const until = Date.now() + 20_000;
  for (;;) {
    const found = (await deliveries(world, account, endpointId)).find((d) => d.id === id);
    if (found?.status === status) return found;
    if (Date.now() > until) throw new Error(`delivery ${id} is ${found?.status ?? 'missing'}, not ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('webhooks', () => {
  let world: TestWorld;
  let account: TestAccount;
  let receiver: WebhookReceiver;
  // Per path: the statuses the receiver answers in turn (then 200).
  const scripts = new Map<string, number[]>();

  beforeAll(async () => {
    world = await startWorld({
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '200ms,300ms,400ms', WEBHOOK_TIMEOUT_MS: '3000' },
    });
    receiver = await startWebhookReceiver((request) => {
      // A receiver's answer can hold anything, a NUL byte and a long body included.
      if (request.path === '/odd-answer' && receiver.received.filter((r) => r.path === '/odd-answer').length === 1) {
        return { status: 500, body: `bad\u0000answer ${'x'.repeat(5_000)}` };
      }
      return { status: scripts.get(request.path)?.shift() ?? 200 };
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await world?.close();
  });
  beforeEach(async () => {
    account = await buildAccount(world.db, { credits: 100_000 });
  });

  it('when jobs end with every terminal status, then each event reaches the endpoint once, verified with standardwebhooks, its data the job body without leads', async () => {
    const endpoint = await createEndpoint(world, account, receiver.url('/all'));
    const bodies = {
      completed: { category: 'dentist', state: 'US', maxResults: 5 },
      partial: { category: 'dentist', state: 'US', maxResults: 5, keyword: 'sandbox:only=3' },
      empty: { category: 'dentist', state: 'US', maxResults: 5, keyword: 'sandbox:empty' },
      failed: { category: 'dentist', state: 'US', maxResults: 5, keyword: 'sandbox:fail' },
      cancelled: { category: 'dentist', state: 'US', maxResults: 50, keyword: 'sandbox:delay=3000' },
    };
    const jobs: Record<string, string> = {};
    for (const [name, body] of Object.entries(bodies)) {
      const res = await generate(world, account, body, { Prefer: 'respond-async' });
      expect(res.status).toBe(202);
      jobs[name] = res.body.jobId;
    }
    expect((await world.http.delete(`/api/v1/leads/jobs/${jobs.cancelled}`).set(account.auth)).status).toBe(200);

    const received = await receiver.waitFor(5, (r) => r.path === '/all');
    const events = received.map((r) => verify(endpoint.secret, r));
    expect(events.map((e) => e.type).sort()).toEqual([...ALL_EVENTS].sort());
    for (const [name, jobId] of Object.entries(jobs)) {
      const event = events.find((e) => e.data.jobId === jobId)!;
      expect(event.type).toBe(`job.${name}`);
      const { leads, ...withoutLeads } = (await world.http.get(`/api/v1/leads/jobs/${jobId}`).set(account.auth)).body;
      expect(Array.isArray(leads)).toBe(true);
      expect(event.data).toEqual({ ...withoutLeads, leadsUrl: `/api/v1/leads/jobs/${jobId}/leads` });
      expect(event.timestamp).toBe(withoutLeads.finishedAt);
    }
    const ids = received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^msg_[0-9a-f]{32}$/);

    // Kept and listed: one succeeded attempt each.
    const listed = await deliveries(world, account, endpoint.id);
    await Promise.all(listed.map((d) => waitForDelivery(world, account, endpoint.id, d.id, 'succeeded')));
    const settled = await deliveries(world, account, endpoint.id);
    expect(settled).toHaveLength(5);
    for (const d of settled) expect(d.attempts).toMatchObject([{ responseStatus: 200, succeeded: true, error: null }]);
  });

  it('when an endpoint subscribes to some events, then only those reach it', async () => {
    const failedOnly = await createEndpoint(world, account, receiver.url('/failed-only'), ['job.failed']);
    const ok = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 3 });
    const failed = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 3, keyword: 'sandbox:fail' });
    expect([ok.body.status, failed.body.status]).toEqual(['COMPLETE', 'FAILED']);
    const [only] = await receiver.waitFor(1, (r) => r.path === '/failed-only');
    expect(verify(failedOnly.secret, only!)).toMatchObject({ type: 'job.failed', data: { jobId: failed.body.jobId } });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => r.path === '/failed-only')).toHaveLength(1);
  });

  it('when the receiver fails, then the delivery is retried on the schedule with the same webhook-id until a 2xx, each attempt kept; a redirect is not followed', async () => {
    scripts.set('/flaky', [500, 302, 503]);
    const endpoint = await createEndpoint(world, account, receiver.url('/flaky'));
    const job = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 2 });
    const received = await receiver.waitFor(4, (r) => r.path === '/flaky');
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    for (const r of received) expect(verify(endpoint.secret, r)).toMatchObject({ type: 'job.completed', data: { jobId: job.body.jobId } });
    // The schedule's waits (200, 300, 400 ms, each ±20 %) separate the attempts.
    const gaps = received.slice(1).map((r, i) => r.at - received[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(150);
    expect(gaps[2]).toBeGreaterThanOrEqual(300);
    const delivery = await waitForDelivery(world, account, endpoint.id, received[0]!.headers['webhook-id']!, 'succeeded');
    expect(delivery.attempts.map((a) => [a.responseStatus, a.error, a.succeeded])).toEqual([
      [500, null, false],
      [302, 'redirect_not_followed', false],
      [503, null, false],
      [200, null, true],
    ]);
  });

  it('when the receiver answers a long body with a NUL byte, then the attempt keeps its first KiB without it, and the retry succeeds', async () => {
    const endpoint = await createEndpoint(world, account, receiver.url('/odd-answer'));
    const ping = await world.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set(account.auth);
    const delivery = await waitForDelivery(world, account, endpoint.id, ping.body.id, 'succeeded');
    expect(delivery.attempts).toHaveLength(2);
    const excerpt = (delivery.attempts[0] as unknown as { responseExcerpt: string }).responseExcerpt;
    expect(excerpt.startsWith('badanswer xxx')).toBe(true);
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(1024);
  });

  it('when every attempt of the schedule fails, then the delivery fails; a manual retry sends it again with the same webhook-id', async () => {
    scripts.set('/down', [500, 500, 500, 500]);
    const endpoint = await createEndpoint(world, account, receiver.url('/down'));
    await generate(world, account, { category: 'dentist', state: 'US', maxResults: 1 });
    const received = await receiver.waitFor(4, (r) => r.path === '/down');
    const id = received[0]!.headers['webhook-id']!;
    const failed = await waitForDelivery(world, account, endpoint.id, id, 'failed');
    expect(failed.attempts).toHaveLength(4);
    const endpointNow = (await world.http.get(`/api/v1/webhooks/${endpoint.id}`).set(account.auth)).body;
    expect(endpointNow).toMatchObject({ enabled: true, failingSince: expect.any(String) });

    const retried = await world.http.post(`/api/v1/webhooks/${endpoint.id}/deliveries/${id}/retry`).set(account.auth);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id, status: 'pending' });
    const again = await receiver.waitFor(5, (r) => r.path === '/down');
    expect(again[4]!.headers['webhook-id']).toBe(id);
    const done = await waitForDelivery(world, account, endpoint.id, id, 'succeeded');
    expect(done.attempts).toHaveLength(5);
    // Success ends the endpoint's failure streak.
    expect((await world.http.get(`/api/v1/webhooks/${endpoint.id}`).set(account.auth)).body.failingSince).toBeNull();
    // A pending delivery cannot be retried; an unknown one is 404.
    const unknown = await world.http.post(`/api/v1/webhooks/${endpoint.id}/deliveries/msg_${'0'.repeat(32)}/retry`).set(account.auth);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('webhook_delivery_not_found');
  });

  it('when the receiver answers 410 Gone, then the endpoint is disabled with that reason and nothing more is sent to it', async () => {
    scripts.set('/gone', [410]);
    const endpoint = await createEndpoint(world, account, receiver.url('/gone'));
    await generate(world, account, { category: 'dentist', state: 'US', maxResults: 1 });
    const [first] = await receiver.waitFor(1, (r) => r.path === '/gone');
    await waitForDelivery(world, account, endpoint.id, first!.headers['webhook-id']!, 'failed');
    const disabled = (await world.http.get(`/api/v1/webhooks/${endpoint.id}`).set(account.auth)).body;
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'gone', disabledAt: expect.any(String) });
    await generate(world, account, { category: 'dentist', state: 'US', maxResults: 1 });
    const ping = await world.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set(account.auth);
    expect(ping.status).toBe(409);
    expect(ping.body.code).toBe('webhook_endpoint_disabled');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => r.path === '/gone')).toHaveLength(1);
    // Enabled again by its owner, it receives events again.
    const enabled = await world.http.patch(`/api/v1/webhooks/${endpoint.id}`).set(account.auth).send({ enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
    expect((await world.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set(account.auth)).status).toBe(202);
    await receiver.waitFor(2, (r) => r.path === '/gone');
  });

  it('when an endpoint has failed every attempt for longer than the disable window, then its next failure disables it as failing', async () => {
    scripts.set('/failing', [500]);
    const endpoint = await createEndpoint(world, account, receiver.url('/failing'));
    await world.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { failingSince: new Date(Date.now() - 4 * 24 * 3600_000) } });
    const ping = await world.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set(account.auth);
    await waitForDelivery(world, account, endpoint.id, ping.body.id, 'failed');
    expect((await world.http.get(`/api/v1/webhooks/${endpoint.id}`).set(account.auth)).body).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
  });

  it('when the secret is rotated, then deliveries verify with the new secret and, for a day, with the old one too', async () => {
    const endpoint = await createEndpoint(world, account, receiver.url('/rotated'));
    const rotated = await world.http.post(`/api/v1/webhooks/${endpoint.id}/rotate-secret`).set(account.auth);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const ping = await world.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set(account.auth);
    expect(ping.status).toBe(202);
    expect(ping.body).toMatchObject({ eventType: 'ping', status: 'pending', jobId: null });
    const [request] = await receiver.waitFor(1, (r) => r.path === '/rotated');
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(rotated.body.secret, request!)).toMatchObject({ type: 'ping', data: { endpointId: endpoint.id } });
    expect(verify(endpoint.secret, request!)).toMatchObject({ type: 'ping' });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(request!.body, request!.headers)).toThrow();
  });

  it('when a job carries its own webhookUrl, then its event is signed with the account default secret, shown once', async () => {
    const revealed = await world.http.post('/api/v1/webhooks/default-secret').set(account.auth);
    expect(revealed.status).toBe(200);
    expect(revealed.body.secret).toMatch(/^whsec_/);
    const again = await world.http.post('/api/v1/webhooks/default-secret').set(account.auth);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('webhook_secret_already_revealed');

    const key = idempotencyKey();
    const body = { category: 'dentist', state: 'US', maxResults: 2, webhookUrl: receiver.url('/job-own') };
    const job = await generate(world, account, body, { 'Idempotency-Key': key });
    expect(job.status).toBe(200);
    expect(job.body.request.webhookUrl).toBe(body.webhookUrl);
    const [request] = await receiver.waitFor(1, (r) => r.path === '/job-own');
    expect(verify(revealed.body.secret, request!)).toMatchObject({ type: 'job.completed', data: { jobId: job.body.jobId } });
    // The key's fingerprint covers webhookUrl: the same key with another target is another request.
    const reused = await generate(world, account, { ...body, webhookUrl: receiver.url('/other') }, { 'Idempotency-Key': key });
    expect(reused.status).toBe(422);

    // The job's deliveries are listed with it, and one to its own URL can be sent again.
    const path = `/api/v1/leads/jobs/${job.body.jobId}/webhook-deliveries`;
    const until = Date.now() + 10_000;
    let listed = (await world.http.get(path).set(account.auth)).body.items;
    while (listed[0]?.status !== 'succeeded' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      listed = (await world.http.get(path).set(account.auth)).body.items;
    }
    expect(listed).toEqual([
      expect.objectContaining({ id: request!.headers['webhook-id'], endpointId: null, eventType: 'job.completed', status: 'succeeded' }),
    ]);
    const retried = await world.http.post(`${path}/${listed[0].id}/retry`).set(account.auth);
    expect(retried.status).toBe(202);
    const [, resent] = await receiver.waitFor(2, (r) => r.path === '/job-own');
    expect(resent!.headers['webhook-id']).toBe(request!.headers['webhook-id']);
    const other = await buildAccount(world.db, { credits: 0 });
    const foreign = await world.http.get(path).set(other.auth);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'job_not_found']);
  });

  it('when the first job with a webhookUrl comes before any request for the secret, then it creates the secret, which is shown once afterwards', async () => {
    const job = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 1, webhookUrl: receiver.url('/first-use') });
    expect(job.status).toBe(200);
    const [request] = await receiver.waitFor(1, (r) => r.path === '/first-use');
    const revealed = await world.http.post('/api/v1/webhooks/default-secret').set(account.auth);
    expect(verify(revealed.body.secret, request!)).toMatchObject({ data: { jobId: job.body.jobId } });
    const rotated = await world.http.post('/api/v1/webhooks/default-secret/rotate').set(account.auth);
    expect(rotated.body.secret).not.toBe(revealed.body.secret);
    expect(rotated.body.previousSecretExpiresAt).toEqual(expect.any(String));
  });

  it('when endpoints are managed, then they belong to the account, at most 10, unknown fields refused, and another account sees none', async () => {
    const endpoint = await createEndpoint(world, account, receiver.url('/managed'), ['job.completed']);
    const listed = await world.http.get('/api/v1/webhooks').set(account.auth);
    expect(listed.body.items).toEqual([expect.objectContaining({ id: endpoint.id, events: ['job.completed'], enabled: true })]);
    expect(listed.body.items[0].secret).toBeUndefined();
    const patched = await world.http
      .patch(`/api/v1/webhooks/${endpoint.id}`)
      .set(account.auth)
      .send({ events: ['job.failed', 'job.empty'], description: null });
    expect(patched.body).toMatchObject({ events: ['job.failed', 'job.empty'], description: null });

    const other = await buildAccount(world.db, { credits: 0 });
    for (const res of [
      await world.http.get(`/api/v1/webhooks/${endpoint.id}`).set(other.auth),
      await world.http.patch(`/api/v1/webhooks/${endpoint.id}`).set(other.auth).send({ enabled: false }),
      await world.http.delete(`/api/v1/webhooks/${endpoint.id}`).set(other.auth),
      await world.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set(other.auth),
      await world.http.get(`/api/v1/webhooks/${endpoint.id}/deliveries`).set(other.auth),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('webhook_endpoint_not_found');
    }

    const invalid = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: 'ftp://x.example', events: ['job.done'], secret: 'mine' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/events/0', '#/secret', '#/url']);

    for (let i = 1; i < 10; i += 1) await createEndpoint(world, account, receiver.url(`/many-${i}`));
    const eleventh = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: receiver.url('/eleventh'), events: ['job.failed'] });
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.code).toBe('webhook_endpoint_limit');
    expect((await world.http.delete(`/api/v1/webhooks/${endpoint.id}`).set(account.auth)).status).toBe(204);
    expect((await world.http.get(`/api/v1/webhooks/${endpoint.id}`).set(account.auth)).status).toBe(404);
  });

  it('when deliveries are listed, then newest first in pages with a cursor', async () => {
    const endpoint = await createEndpoint(world, account, receiver.url('/paged'));
    for (let i = 0; i < 3; i += 1)
      expect((await world.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set(account.auth)).status).toBe(202);
    const first = await world.http.get(`/api/v1/webhooks/${endpoint.id}/deliveries?limit=2`).set(account.auth);
    expect(first.body.items).toHaveLength(2);
    expect(first.headers.link).toContain('rel="next"');
    const second = await world.http
      .get(`/api/v1/webhooks/${endpoint.id}/deliveries?limit=2&cursor=${first.body.nextCursor}`)
      .set(account.auth);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    const bad = await world.http.get(`/api/v1/webhooks/${endpoint.id}/deliveries?cursor=nope&extra=1`).set(account.auth);
    expect(bad.status).toBe(400);
  });

  it('when a job finishes, then its terminal status and its deliveries are written together, whatever becomes of the queue', async () => {
    const endpoint = await createEndpoint(world, account, receiver.url('/outbox'));
    const job = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 1 });
    const rows = await world.db.webhookDelivery.findMany({ where: { jobId: job.body.jobId } });
    expect(rows).toEqual([expect.objectContaining({ endpointId: endpoint.id, eventType: 'job.completed' })]);
  });
});

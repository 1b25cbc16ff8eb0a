import { newWebhookEndpointId } from '@leadgen/domain';
import { generate, startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver';

// Without WEBHOOK_ALLOW_PRIVATE_NETWORKS, webhook targets go through the crawler's SSRF guard: refused
// when given, and refused again at every attempt (a URL stored earlier, or a name whose DNS changed).

describe('webhook targets without private networks', () => {
  let world: TestWorld;
  let account: TestAccount;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    world = await startWorld({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_RETRY_SCHEDULE: '100ms' } });
    account = await buildAccount(world.db, { credits: 10_000 });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await world?.close();
  });

  it.each([
    ['https://127.0.0.1/hook', 'non-public'],
    ['https://localhost/hook', 'non-public'],
    ['https://169.254.169.254/latest/meta-data', 'non-public'],
    ['https://10.1.2.3/hook', 'non-public'],
    ['https://[::1]/hook', 'non-public'],
    ['https://[::ffff:192.168.0.1]/hook', 'non-public'],
    ['https://93.184.215.14:22/hook', 'port'],
    ['http://93.184.215.14/hook', 'https'],
    ['https://user:pass@93.184.215.14/hook', 'credentials'],
  ])('when an endpoint is created for %s, then it is refused (%s)', async (url, why) => {
    const res = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url, events: ['job.completed'] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([{ pointer: '#/url', detail: expect.stringContaining(why) }]);
  });

  it('when a generation request names a private webhookUrl, then it is refused before any job or reservation exists', async () => {
    const res = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 1, webhookUrl: receiver.url() });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ pointer: '#/webhookUrl', detail: expect.stringContaining('https') }]);
    const viaHttps = await generate(world, account, {
      category: 'dentist',
      state: 'US',
      maxResults: 1,
      webhookUrl: 'https://127.0.0.1:8443/x',
    });
    expect(viaHttps.body.errors).toEqual([{ pointer: '#/webhookUrl', detail: expect.stringContaining('non-public') }]);
    expect(await world.db.job.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it('when a stored endpoint points at a private address, then the delivery refuses to connect and says why', async () => {
    // As if the URL had been accepted earlier (with the escape hatch on, or a public name that now resolves privately).
    const endpoint = await world.db.webhookEndpoint.create({
      data: {
        id: newWebhookEndpointId(),
        accountId: account.accountId,
        url: receiver.url('/private'),
        events: ['job.completed'],
        secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
      },
    });
    const job = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 1 });
    expect(job.body.status).toBe('COMPLETE');
    const until = Date.now() + 15_000;
    let delivery;
    do {
      await new Promise((r) => setTimeout(r, 100));
      delivery = await world.db.webhookDelivery.findFirst({
        where: { endpointId: endpoint.id },
        include: { attemptLog: { orderBy: { attempt: 'asc' } } },
      });
    } while (delivery?.status !== 'failed' && Date.now() < until);
    expect(delivery?.status).toBe('failed');
    expect(delivery?.attemptLog.map((a) => [a.error, a.responseStatus, a.succeeded])).toEqual([
      ['forbidden_address', null, false],
      ['forbidden_address', null, false],
    ]);
    expect(receiver.received).toHaveLength(0);
  });
});

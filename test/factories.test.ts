import { NON_TERMINAL_STATUSES, SOURCES, TERMINAL_STATUSES, chargeFor, reservationFor } from '@leadgen/domain';
import {
  buildAccount,
  buildApiKey,
  buildBatch,
  buildDeliveredJobs,
  buildJob,
  buildLead,
  buildMonitor,
  buildSuppressions,
  buildWebhookEndpoint,
} from './factories';
import { secretContext } from '@leadgen/db';
import { checkInvariants } from './faults/invariants';
import { startWorld, type TestWorld } from './harness';

// The factories build through the service's own statements: what they make must be what the API
// answers, and must keep every guarantee the fault suites check.
describe('test factories', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when an account is built, then it has the credits asked for and a key the API accepts; a second key works too', async () => {
    const account = await buildAccount(world.db, { credits: 300 });
    const res = await world.http.get('/api/v1/account').set(account.auth);
    expect(res.body).toMatchObject({ accountId: account.accountId, credits: { balance: 300, reserved: 0, available: 300 } });
    const expired = await buildApiKey(world.db, account.accountId, { expiresAt: new Date(Date.now() - 1000) });
    expect((await world.http.get('/api/v1/account').set(expired.auth)).status).toBe(401);
  });

  it.each([...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES])(
    'when a %s job is built, then the API answers it so, and no invariant is broken',
    async (status) => {
      const account = await buildAccount(world.db, { credits: 1_000 });
      const job = await buildJob(world.db, { accountId: account.accountId, status, maxResults: 6 });
      const res = await world.http.get(`/api/v1/leads/jobs/${job.id}`).set(account.auth);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
      const delivered = { COMPLETE: 6, PARTIAL: 3 }[status as string] ?? 0;
      expect(res.body.progress).toEqual({ requestedCount: 6, deliveredCount: delivered });
      if (res.body.terminal) {
        expect(res.body.leads).toHaveLength(delivered);
        expect(res.body.creditsCharged).toBe(chargeFor('google_maps', delivered));
      }
      const credits = (await world.http.get('/api/v1/account').set(account.auth)).body.credits;
      expect(credits.reserved).toBe(res.body.terminal ? 0 : reservationFor('google_maps', 6));
      expect(await checkInvariants(world.config.database.url, { accountIds: [account.accountId] })).toEqual([]);
    },
  );

  it("when a job is built for each source with leads delivered before a cancel, then its leads have the source's shape", async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    for (const source of SOURCES) {
      const job = await buildJob(world.db, { accountId: account.accountId, status: 'CANCELLED', source, deliveredCount: 2 });
      const res = await world.http.get(`/api/v1/leads/jobs/${job.id}`).set(account.auth);
      expect(res.body).toMatchObject({ status: 'CANCELLED', source, progress: { deliveredCount: 2 } });
      expect(res.body.leads).toEqual([buildLead(source, 0), buildLead(source, 1)]);
    }
    expect(await checkInvariants(world.config.database.url, { accountIds: [account.accountId] })).toEqual([]);
  });

  it('when the counts asked for contradict the status, then the factory says so instead of building another', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    await expect(buildJob(world.db, { accountId: account.accountId, status: 'PARTIAL', maxResults: 1 })).rejects.toThrow(
      /asked for PARTIAL, the counts made it COMPLETE/,
    );
    await expect(buildJob(world.db, { accountId: (await buildAccount(world.db, { credits: 0 })).accountId })).rejects.toThrow(
      /insufficient_credits/,
    );
  });

  it('when delivered jobs are built in bulk, then the account lists them with their leads', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const ids = await buildDeliveredJobs(world.db, account.accountId, 3, 4);
    const res = await world.http.get('/api/v1/leads?limit=100').set(account.auth);
    expect(res.body.items).toHaveLength(12);
    expect([...new Set((res.body.items as Array<{ jobId: string }>).map((i) => i.jobId))]).toEqual(ids);
  });

  it('when a batch is built, then the API answers it running with its children queued, and no invariant is broken', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const batch = await buildBatch(world.db, { accountId: account.accountId, requests: [{}, { maxResults: 4 }, { source: 'shopify' }] });
    const res = await world.http.get(`/api/v1/leads/batches/${batch.batchId}`).set(account.auth);
    expect(res.body).toMatchObject({ batchId: batch.batchId, status: 'running', childCount: 3, requestedCount: 24 });
    const children = await world.http.get(`/api/v1/leads/batches/${batch.batchId}/jobs`).set(account.auth);
    expect((children.body.items as Array<{ jobId: string; status: string }>).map((c) => [c.jobId, c.status])).toEqual(
      batch.jobIds.map((id) => [id, 'queued']),
    );
    expect(await checkInvariants(world.config.database.url, { accountIds: [account.accountId] })).toEqual([]);
    await expect(buildBatch(world.db, { accountId: (await buildAccount(world.db, { credits: 0 })).accountId })).rejects.toThrow(
      /insufficient_credits/,
    );
  });

  it('when a monitor is built, of one request or of a batch, then the API answers it as stored', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const single = await buildMonitor(world.db, { accountId: account.accountId, name: 'dentists' });
    const batchMonitor = await buildMonitor(world.db, {
      accountId: account.accountId,
      batch: { requests: [{ source: 'google_maps', category: 'dentist', state: 'US', maxResults: 5 }] },
      enabled: false,
    });
    const one = await world.http.get(`/api/v1/monitors/${single.id}`).set(account.auth);
    expect(one.body).toMatchObject({ monitorId: single.id, name: 'dentists', enabled: true, schedule: { every: 'PT1H' } });
    expect(one.body.request).toMatchObject({ source: 'google_maps', category: 'dentist', maxResults: 10 });
    const other = await world.http.get(`/api/v1/monitors/${batchMonitor.id}`).set(account.auth);
    expect(other.body).toMatchObject({
      monitorId: batchMonitor.id,
      enabled: false,
      nextRunAt: null,
      batch: { requests: [{ maxResults: 5 }] },
    });
  });

  it('when a webhook endpoint is built, then the API lists it, and its secret is the one it signs with', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const { endpoint, secret } = await buildWebhookEndpoint(world.db, account.accountId, { events: ['batch.completed'] });
    expect(secret).toMatch(/^whsec_/);
    const res = await world.http.get(`/api/v1/webhooks/${endpoint.id}`).set(account.auth);
    expect(res.body).toMatchObject({ id: endpoint.id, url: 'https://hooks.example.com/leadgen', events: ['batch.completed'] });
    const { rows } = await world.db.sql.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    expect(world.db.secrets.open(rows[0]!.secret, secretContext.endpoint(endpoint.id))).toBe(secret);
  });

  it('when suppressions are built, then the API lists them', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const entries = await buildSuppressions(world.db, account.accountId, [
      { kind: 'domain', value: 'studio0.example' },
      { kind: 'email', value: 'info1@studio1.example' },
    ]);
    const res = await world.http.get('/api/v1/suppressions').set(account.auth);
    expect((res.body.items as Array<{ kind: string; value: string }>).map(({ kind, value }) => ({ kind, value }))).toEqual(entries);
  });
});

import { creditSummary } from '@leadgen/db';
import { makePlaces, startGooglePlacesFake, type GooglePlacesFake } from '@leadgen/testing';
import { startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';

/**
 * Test keys (issue 31, finding 9; decision 036): an lg_test_ key's jobs are the sandbox's even where the worker
 * holds a real upstream's key, spend none of the account's credits, and live in the account's test account:
 * live keys never see them, test keys never see live ones.
 */
const WAIT = { Prefer: 'wait=20' };
const bearer = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });

describe('test keys', () => {
  const GOOGLE_KEY = 'google-test-keys';
  let google: GooglePlacesFake;
  let world: TestWorld;
  let account: TestAccount;
  let testKey: string;

  beforeAll(async () => {
    google = await startGooglePlacesFake(GOOGLE_KEY);
    google.places = makePlaces(12, 'atx');
    world = await startWorld({
      env: {
        WORKER_QUEUES: 'google_maps',
        GOOGLE_PLACES_API_KEY: GOOGLE_KEY,
        GOOGLE_PLACES_BASE_URL: google.url,
        SANDBOX_PAGE_DELAY_MS: '0',
      },
    });
    account = await buildAccount(world.db, { credits: 100 });
    const created = await world.http.post('/api/v1/keys').set(account.auth).send({ mode: 'test', name: 'ci' });
    expect(created.status).toBe(201);
    testKey = created.body.apiKey;
  });
  afterAll(async () => {
    await world?.close();
    await google?.close();
  });

  it('when a test key generates, then the sandbox serves it although the worker has a Google key, and the live credits stay whole', async () => {
    const before = google.requests.length;
    const job = await world.http
      .post('/api/v1/leads/generate')
      .set(bearer(testKey))
      .set('Idempotency-Key', 'test-key-1')
      .set(WAIT)
      .send({ category: 'dentist', state: 'US', city: 'Austin', maxResults: 30 });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ provider: 'sandbox', status: 'COMPLETE', progress: { deliveredCount: 30 }, creditsCharged: 60 });
    expect(google.requests.length).toBe(before);
    // The sandbox gives the complete lead (decision 038): retrievedAt and every value's provenance, upstream "sandbox".
    const leads = job.body.leads as Array<{ retrievedAt?: string; website: string | null; provenance?: { website: unknown } }>;
    expect(leads).toHaveLength(30);
    for (const lead of leads) {
      expect(lead.retrievedAt).toEqual(expect.any(String));
      expect(lead.provenance?.website).toEqual(
        lead.website === null
          ? null
          : expect.objectContaining({ origin: 'upstream', upstream: 'sandbox', retrievedAt: expect.any(String) }),
      );
    }
    // 60 credits is more than the live account has: nothing of it was spent, the test account paid in test credits.
    expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: 100, reserved: 0, available: 100 });
    const me = await world.http.get('/api/v1/account').set(bearer(testKey));
    expect(me.body).toMatchObject({ mode: 'test', accountId: expect.stringMatching(/^acc_test_/) });
    expect(me.body.credits.balance).toBe(1_000_000_000 - 60);

    // A live key of the same account, on the same worker, goes to the real upstream.
    const live = await world.http
      .post('/api/v1/leads/generate')
      .set(account.auth)
      .set('Idempotency-Key', 'live-key-1')
      .set(WAIT)
      .send({ category: 'dentist', state: 'US', city: 'Austin', maxResults: 5 });
    expect(live.status).toBe(200);
    expect(live.body.provider).toBe('google_places');
    expect(google.requests.length).toBeGreaterThan(before);
  });

  it('when a test key quotes an area, then the sandbox surveys it although the API has a Google key (decision 039)', async () => {
    const before = google.requests.length;
    const quote = await world.http
      .post('/api/v1/leads/quotes')
      .set(bearer(testKey))
      .send({ area: { bbox: { south: 30.25, west: -97.76, north: 30.28, east: -97.72 } }, request: { category: 'dentist', state: 'US' } });
    expect(quote.status).toBe(201);
    expect(quote.body).toMatchObject({ provider: 'sandbox', upstreamCalls: { placeResolution: 0 } });
    expect(google.requests.length).toBe(before);
  });

  it('when live and test keys list jobs and leads, then each sees only its own mode, and a job of the other answers 404', async () => {
    const testJobs = (await world.http.get('/api/v1/leads/jobs').set(bearer(testKey))).body.items;
    const liveJobs = (await world.http.get('/api/v1/leads/jobs').set(account.auth)).body.items;
    expect(testJobs.length).toBeGreaterThan(0);
    expect(liveJobs.length).toBeGreaterThan(0);
    expect(testJobs.every((j: { provider: string }) => j.provider === 'sandbox')).toBe(true);
    expect(liveJobs.every((j: { provider: string }) => j.provider === 'google_places')).toBe(true);
    const crossed = await world.http.get(`/api/v1/leads/jobs/${testJobs[0].jobId}`).set(account.auth);
    expect([crossed.status, crossed.body.code]).toEqual([404, 'job_not_found']);
    const crossedBack = await world.http.get(`/api/v1/leads/jobs/${liveJobs[0].jobId}`).set(bearer(testKey));
    expect(crossedBack.status).toBe(404);
    const testLeads = (await world.http.get('/api/v1/leads').set(bearer(testKey))).body.items;
    expect(testLeads.every((l: { jobId: string }) => testJobs.some((j: { jobId: string }) => j.jobId === l.jobId))).toBe(true);
  });

  it('when the live key lists keys, then it sees the test key too, and revoking it refuses the test key at once', async () => {
    const created = (await world.http.post('/api/v1/keys').set(account.auth).send({ mode: 'test' })).body;
    expect((await world.http.get('/api/v1/account').set(bearer(created.apiKey))).status).toBe(200);
    const listed = await world.http.get('/api/v1/keys?mode=test').set(account.auth);
    expect(listed.body.items.map((k: { keyId: string }) => k.keyId)).toContain(created.keyId);
    // The test key sees only test keys.
    const fromTest = await world.http.get('/api/v1/keys').set(bearer(created.apiKey));
    expect(fromTest.body.items.every((k: { mode: string }) => k.mode === 'test')).toBe(true);
    expect((await world.http.delete(`/api/v1/keys/${created.keyId}`).set(account.auth)).status).toBe(200);
    expect((await world.http.get('/api/v1/account').set(bearer(created.apiKey))).status).toBe(401);
    // One test account per account, however many test keys.
    expect(await world.db.account.count({ where: { liveAccountId: account.accountId } })).toBe(1);
  });
});

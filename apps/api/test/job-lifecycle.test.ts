import { creditSummary } from '@leadgen/db';
import { generate, pollUntilTerminal, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

let world: TestWorld;
let account: TestAccount;

beforeAll(async () => {
  world = await startWorld();
  account = await buildAccount(world.db, { credits: 100_000 });
});
afterAll(() => world.close());

describe('POST /api/v1/leads/generate answered synchronously', () => {
  it('when the job finishes within the wait, then 200 with the terminal object and the leads', async () => {
    const res = await generate(world, account, { category: 'dentist', state: 'us', city: 'Austin', maxResults: 12 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      source: 'google_maps',
      provider: 'sandbox',
      status: 'COMPLETE',
      request: { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 12 },
      progress: { requestedCount: 12, deliveredCount: 12 },
      creditsCharged: 24,
      terminal: { status: 'COMPLETE', requestedCount: 12, deliveredCount: 12, stopReason: null },
    });
    expect(res.body.terminal.resultSetId).toBe(res.body.resultSetId);
    expect(res.body.pollUrl).toBe(`/api/v1/leads/jobs/${res.body.jobId}`);
    expect(res.body.leads).toHaveLength(12);
    const lead = res.body.leads[0];
    for (const field of ['businessName', 'email', 'phone', 'address', 'website', 'reviewScore', 'categories', 'socialProfiles']) {
      expect(lead).toHaveProperty(field);
    }
    expect(res.get('Retry-After')).toBeUndefined();
  });

  it('when polled after the terminal status, then the same body, unchanged', async () => {
    const first = await generate(world, account, { category: 'bakery', state: 'DE', maxResults: 3 });
    const polled = await world.http.get(`/api/v1/leads/jobs/${first.body.jobId}`).set(account.auth);
    expect(polled.status).toBe(200);
    expect(polled.body).toEqual(first.body);
  });
});

describe('terminal statuses and their counts', () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['the source has enough', { maxResults: 25 }, { status: 'COMPLETE', deliveredCount: 25, stopReason: null }],
    [
      'the source has fewer',
      { maxResults: 25, keyword: 'sandbox:only=7' },
      { status: 'PARTIAL', deliveredCount: 7, stopReason: 'source_exhausted' },
    ],
    ['the source has none', { keyword: 'sandbox:empty' }, { status: 'EMPTY', deliveredCount: 0, stopReason: 'no_results' }],
    ['the upstream fails at once', { keyword: 'sandbox:fail' }, { status: 'FAILED', deliveredCount: 0, stopReason: 'provider_error' }],
    [
      'the upstream refuses the credentials',
      { keyword: 'sandbox:unauthorized' },
      { status: 'FAILED', deliveredCount: 0, stopReason: 'provider_unauthorized' },
    ],
    [
      'the upstream fails after some',
      { maxResults: 30, keyword: 'sandbox:fail_after=12' },
      { status: 'PARTIAL', deliveredCount: 12, stopReason: 'provider_error' },
    ],
  ];
  it.each(cases)('when %s, then the terminal object says so', async (_name, extra, expected) => {
    const res = await generate(world, account, { category: 'plumber', state: 'GB', ...extra });
    expect(res.status).toBe(200);
    expect(res.body.terminal).toMatchObject(expected);
    expect(res.body.leads).toHaveLength(expected.deliveredCount as number);
    expect(res.body.status).toBe(expected.status);
  });

  it('when the job outlives JOB_TIMEOUT_MS, then it ends by timeout with what it had', async () => {
    const slow = await startWorld({ env: { JOB_TIMEOUT_MS: '400' } });
    try {
      const other = await buildAccount(slow.db);
      const res = await generate(slow, other, { category: 'florist', state: 'FR', maxResults: 50, keyword: 'sandbox:delay=150' });
      expect(res.status).toBe(200);
      expect(res.body.terminal.stopReason).toBe('timeout');
      expect(['PARTIAL', 'FAILED']).toContain(res.body.terminal.status);
      expect(res.body.terminal.deliveredCount).toBeLessThan(50);
      expect(res.body.leads).toHaveLength(res.body.terminal.deliveredCount);
    } finally {
      await slow.close();
    }
  });
});

describe('the asynchronous answer', () => {
  it('when the job outlasts the wait, then 202 with Location, Retry-After and the job reference', async () => {
    const res = await generate(
      world,
      account,
      { category: 'gym', state: 'US', maxResults: 20, keyword: 'sandbox:delay=300' },
      { Prefer: 'wait=0' },
    );
    expect(res.status).toBe(202);
    expect(res.get('Preference-Applied')).toBe('wait=0');
    expect(res.get('Location')).toBe(`/api/v1/leads/jobs/${res.body.jobId}`);
    expect(Number(res.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(res.body).toEqual({
      jobId: expect.stringMatching(/^job_/),
      resultSetId: expect.stringMatching(/^rs_/),
      pollUrl: res.get('Location'),
      status: expect.stringMatching(/^(queued|running)$/),
      progress: { requestedCount: 20, deliveredCount: expect.any(Number) },
    });
    const polled = await world.http.get(res.body.pollUrl).set(account.auth);
    expect(polled.body.terminal).toBeUndefined();
    expect(polled.body.leads).toBeUndefined();
    expect(polled.get('Retry-After')).toBeDefined();
    const done = await pollUntilTerminal(world, account, res.body.jobId);
    expect(done.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 20 });
  });

  it('when Prefer: respond-async, then 202 at once', async () => {
    const res = await generate(world, account, { category: 'cafe', state: 'IT', maxResults: 5 }, { Prefer: 'respond-async' });
    expect(res.status).toBe(202);
    expect(res.get('Preference-Applied')).toBe('respond-async');
    await pollUntilTerminal(world, account, res.body.jobId);
  });

  it('when Prefer: wait=N is above 60, then it is honoured as 60', async () => {
    const res = await generate(world, account, { category: 'cafe', state: 'IT', maxResults: 2 }, { Prefer: 'wait=600' });
    expect(res.status).toBe(200);
    expect(res.get('Preference-Applied')).toBe('wait=60');
  });
});

describe('billing', () => {
  async function charged(body: Record<string, unknown>) {
    const who = await buildAccount(world.db, { credits: 5_000 });
    const res = await generate(world, who, body);
    expect(res.status).toBe(200);
    const credits = await creditSummary(world.db, who.accountId);
    return { res, credits };
  }

  it('when google_maps delivers 3 leads, then the minimum of 10 credits is charged', async () => {
    const { res, credits } = await charged({ category: 'vet', state: 'US', maxResults: 3 });
    expect(res.body.creditsCharged).toBe(10);
    expect(credits).toEqual({ balance: 4_990, reserved: 0, available: 4_990 });
  });

  it('when google_maps delivers 20 leads, then 2 credits each', async () => {
    const { res, credits } = await charged({ category: 'vet', state: 'US', maxResults: 20 });
    expect(res.body.creditsCharged).toBe(40);
    expect(credits.balance).toBe(4_960);
  });

  it('when linkedin delivers 4 leads, then 2 credits each with no minimum', async () => {
    const { res } = await charged({ source: 'linkedin', category: 'software', state: 'United States', maxResults: 4 });
    expect(res.body.creditsCharged).toBe(8);
    expect(res.body.request.state).toBe('US');
    expect(res.body.leads[0].person).toMatchObject({
      fullName: expect.any(String),
      linkedinUrl: expect.stringContaining('linkedin.com/in/'),
    });
  });

  it('when shopify delivers 3 store rows, then 26 credits each', async () => {
    const { res } = await charged({ source: 'shopify', category: 'apparel', state: 'CA', maxResults: 3 });
    expect(res.body.creditsCharged).toBe(78);
    expect(res.body.leads[0].store).toMatchObject({ domain: expect.any(String), platform: 'shopify' });
  });

  it('when nothing is delivered, then nothing is charged and the reservation is released', async () => {
    const { res, credits } = await charged({ category: 'vet', state: 'US', keyword: 'sandbox:empty' });
    expect(res.body.creditsCharged).toBe(0);
    expect(credits).toEqual({ balance: 5_000, reserved: 0, available: 5_000 });
  });

  it('when the account cannot cover the worst case, then 402 with required and available, and no job', async () => {
    const poor = await buildAccount(world.db, { credits: 100 });
    const res = await generate(world, poor, { source: 'shopify', category: 'apparel', state: 'CA', maxResults: 4 });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'insufficient_credits', required: 104, available: 100 });
    expect(await world.db.job.count({ where: { accountId: poor.accountId } })).toBe(0);
  });

  it('when a job is under way, then its worst case is reserved and unavailable to others', async () => {
    const who = await buildAccount(world.db, { credits: 300 });
    const res = await generate(
      world,
      who,
      { category: 'vet', state: 'US', maxResults: 100, keyword: 'sandbox:delay=200' },
      { Prefer: 'respond-async' },
    );
    expect(res.status).toBe(202);
    const account = await world.http.get('/api/v1/account').set(who.auth);
    expect(account.body.credits).toEqual({ balance: 300, reserved: 200, available: 100 });
    const refused = await generate(world, who, { category: 'vet', state: 'US', maxResults: 51 });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ required: 102, available: 100 });
    await world.http.delete(`/api/v1/leads/jobs/${res.body.jobId}`).set(who.auth);
  });
});

describe('GET /api/v1/account', () => {
  it('when asked, then the account with balance, reserved and available', async () => {
    const who = await buildAccount(world.db, { credits: 1234, name: 'Acme Ltd' });
    const res = await world.http.get('/api/v1/account').set(who.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      accountId: who.accountId,
      name: 'Acme Ltd',
      mode: 'live',
      credits: { balance: 1234, reserved: 0, available: 1234 },
    });
  });
});

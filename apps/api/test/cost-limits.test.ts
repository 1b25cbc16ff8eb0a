import { randomUUID } from 'node:crypto';
import { addSuppressionsWithin, createWebhookEndpoint } from '@leadgen/db';
import { newWebhookSecret } from '@leadgen/domain';
import { acquireSlot } from '@leadgen/rate-limits';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, buildDeliveredJobs, type TestAccount } from '../../../test/factories';
import { rawRequest } from '../../../test/raw-http';

// Costly calls weigh what they cost in the `read` limit, downloads are capped per account, bodies are
// refused by their shape before parsing, the suppression list has a cap, and pings a per-endpoint limit.
const READ_PER_MIN = 300;
const CAP = 1_000;

let world: TestWorld;

beforeAll(async () => {
  world = await startWorld({
    worker: false,
    env: { RATE_LIMIT_READ_PER_MIN: String(READ_PER_MIN), SUPPRESSIONS_MAX_PER_ACCOUNT: String(CAP), EXPORTS_PER_ACCOUNT_AT_ONCE: '1' },
  });
});
afterAll(() => world.close());

const remaining = (header: string | undefined) => Number(/r=(\d+)/.exec(header ?? '')?.[1]);
const put = (who: TestAccount, body: unknown) =>
  world.http
    .put('/api/v1/suppressions')
    .set(who.auth)
    .send(body as object);
const emails = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `p${i}@${tag}.example`);

describe('bodies refused by their shape before parsing', () => {
  it('when a suppression upload holds 300,000 entries, then 400 at # before it is parsed or normalised, in well under a second', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    // The uploads' thread starts on the first upload; from the sources (jest) it compiles its TypeScript first, which
    // the built image does not: one small upload starts it, so what is timed is the refusal alone.
    expect((await put(who, { domains: ['warm.example'] })).status).toBe(200);
    const body = JSON.stringify({ domains: Array.from({ length: 300_000 }, (_, i) => `d${i}.example`) });
    const res = await rawRequest(world.api.port, {
      method: 'PUT',
      path: '/api/v1/suppressions',
      headers: { ...who.auth, 'Content-Type': 'application/json' },
      body,
    });
    expect({ status: res.status, errors: res.body?.errors }).toEqual({
      status: 400,
      errors: [{ pointer: '#', detail: 'the body holds more than 100002 entries' }],
    });
    expect(res.ms).toBeLessThan(1_000);
  });

  it('when a suppression upload nests 2,000,000 levels, then 400 at # in well under a second', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    const res = await rawRequest(world.api.port, {
      method: 'PUT',
      path: '/api/v1/suppressions',
      headers: { ...who.auth, 'Content-Type': 'application/json' },
      body: `{"domains":${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}}`,
    });
    expect({ status: res.status, errors: res.body?.errors }).toEqual({
      status: 400,
      errors: [{ pointer: '#', detail: 'the body nests deeper than 32 levels' }],
    });
    expect(res.ms).toBeLessThan(1_000);
  });
});

describe('the cap on suppressions per account', () => {
  it('when an upload would take the list past SUPPRESSIONS_MAX_PER_ACCOUNT, then 409 suppression_limit and nothing is stored; entries held already do not count again', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    expect((await put(who, { emails: emails(800, 'a') })).body.added).toBe(800);
    const over = await put(who, { emails: emails(201, 'b') });
    expect({ status: over.status, body: over.body }).toMatchObject({
      status: 409,
      body: { code: 'suppression_limit', limit: CAP, held: 800 },
    });
    // The 800 again with 200 new ones: exactly the cap.
    const full = await put(who, { emails: [...emails(800, 'a'), ...emails(200, 'b')] });
    expect(full.body).toMatchObject({ added: 200, counts: { email: CAP } });
    expect((await put(who, { domains: ['one-more.example'] })).status).toBe(409);
    // Removing makes room again.
    await world.http
      .delete('/api/v1/suppressions')
      .set(who.auth)
      .send({ emails: emails(1, 'a') });
    expect((await put(who, { domains: ['one-more.example'] })).body.added).toBe(1);
  });

  it('when two uploads race for the last room, then only one fits', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    await put(who, { emails: emails(900, 'c') });
    // Through one API process the second is refused before it is read (429: one upload of an account at a time,
    // decision 035) or, had the first been answered already, by the cap (409).
    const [first, second] = await Promise.all([put(who, { emails: emails(100, 'd') }), put(who, { emails: emails(100, 'e') })]);
    const statuses = [first.status, second.status].sort();
    expect(statuses[0]).toBe(200);
    expect([409, 429]).toContain(statuses[1]);
    expect((await world.http.get('/api/v1/suppressions?limit=1').set(who.auth)).body.counts.email).toBe(CAP);
    // Through two processes both are read: the cap's own lock decides, and only one fits.
    const other = await buildAccount(world.db, { credits: 0 });
    await put(other, { emails: emails(900, 'f') });
    const entries = (tag: string) => emails(100, tag).map((value) => ({ kind: 'email' as const, value }));
    const outcomes = await Promise.all([
      addSuppressionsWithin(world.db, other.accountId, entries('g'), CAP),
      addSuppressionsWithin(world.db, other.accountId, entries('h'), CAP),
    ]);
    expect(outcomes.map((o) => ('overLimit' in o ? 'over' : o.added)).sort()).toEqual([100, 'over']);
    expect((await world.http.get('/api/v1/suppressions?limit=1').set(other.auth)).body.counts.email).toBe(CAP);
  });
});

describe('weighted rate limits', () => {
  it('when suppression uploads are large, then each 100 entries cost one call more, and the call that would go over is refused unwritten', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    // Uploads of 1,000 (under the list's cap of 1,000 per account, so the rate limit is what refuses): 11 calls each.
    const domains = (tag: string) => Array.from({ length: 1_000 }, (_, i) => `${tag}${i}.example`);
    const first = await world.http
      .delete('/api/v1/suppressions')
      .set(who.auth)
      .send({ domains: domains('x') });
    expect(first.status).toBe(200);
    expect(remaining(first.get('RateLimit'))).toBe(READ_PER_MIN - 11);
    let last = first;
    for (let i = 0; i < 30 && last.status === 200; i += 1)
      last = await world.http
        .delete('/api/v1/suppressions')
        .set(who.auth)
        .send({ domains: domains('x') });
    expect(last.status).toBe(429);
    expect(Number(last.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    // 300 / 11: the 28th call is the first past the limit.
    expect((await world.http.get('/api/v1/account').set(who.auth)).status).toBe(429);
  });

  it('when a download streams leads, then every 100 leads cost one call more, charged before it streams', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    await buildDeliveredJobs(world.db, who.accountId, 3, 1_000);
    const csv = await world.http.get('/api/v1/leads.csv').set(who.auth);
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split('\n')).toHaveLength(3_001);
    const after = await world.http.get('/api/v1/account').set(who.auth);
    // 1 for the download, 30 for its 3,000 leads, 1 for this call.
    expect(remaining(after.get('RateLimit'))).toBe(READ_PER_MIN - 32);
    // A JSON page is not a download: its own call only.
    await world.http.get('/api/v1/leads?limit=1000').set(who.auth);
    expect(remaining((await world.http.get('/api/v1/account').set(who.auth)).get('RateLimit'))).toBe(READ_PER_MIN - 34);
  });

  it("when a download would stream more than the minute's room, then 429 before a byte streams; the next one is admitted by its cost, not after it (issue 31, finding 3)", async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    // 20,000 leads: 200 calls' weight. The first download is admitted (1 + 200 of 300), the second is not.
    const [jobId] = await buildDeliveredJobs(world.db, who.accountId, 1, 20_000);
    const first = await world.http.get(`/api/v1/leads/jobs/${jobId}/leads.csv`).set(who.auth);
    expect(first.status).toBe(200);
    expect(first.text.trim().split('\n')).toHaveLength(20_001);
    const second = await world.http.get(`/api/v1/leads/jobs/${jobId}/leads.csv`).set(who.auth);
    expect({ status: second.status, code: second.body.code }).toEqual({ status: 429, code: 'rate_limited' });
    const account = await world.http.get('/api/v1/leads.csv').set(who.auth);
    expect(account.status).toBe(429);
  });

  it('when pings are sent, then each costs 8 calls, and one endpoint takes 5 a minute while another still takes its own', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    const endpoint = async () =>
      (await createWebhookEndpoint(world.db, who.accountId, {
        url: 'https://hooks.example.com/leadgen',
        events: ['job.completed'],
        description: null,
        secret: newWebhookSecret(),
      }))!.id;
    const [one, two] = [await endpoint(), await endpoint()];
    const pings: Array<{ status: number; rateLimit: string | undefined }> = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await world.http.post(`/api/v1/webhooks/${one}/test`).set(who.auth);
      pings.push({ status: res.status, rateLimit: res.get('RateLimit') });
    }
    expect(pings.map((p) => p.status)).toEqual([202, 202, 202, 202, 202, 429]);
    expect(remaining(pings[0]!.rateLimit)).toBe(READ_PER_MIN - 8);
    const refused = await world.http.post(`/api/v1/webhooks/${one}/test`).set(who.auth);
    expect(refused.body.detail).toMatch(/5 pings per endpoint per minute/);
    expect((await world.http.post(`/api/v1/webhooks/${two}/test`).set(who.auth)).status).toBe(202);
    // Five deliveries for the first endpoint: the refused pings made none.
    const deliveries = await world.http.get(`/api/v1/webhooks/${one}/deliveries`).set(who.auth);
    expect(deliveries.body.items).toHaveLength(5);
  });
});

describe('downloads at once per account', () => {
  it('when the account already streams as many downloads as it may (elsewhere), then 429 until one ends; JSON pages are not downloads', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    await buildDeliveredJobs(world.db, who.accountId, 1, 10);
    const slots = world.api.deps.producer.keys.account(who.accountId).exportSlots;
    // Another API process's download in flight: its lease in Redis.
    const elsewhere = randomUUID();
    expect(await acquireSlot(world.api.deps.redis, slots, elsewhere, 1, 60_000)).toBe(true);
    const busy = await world.http.get('/api/v1/leads.jsonl').set(who.auth);
    expect({ status: busy.status, code: busy.body.code }).toEqual({ status: 429, code: 'rate_limited' });
    expect(busy.body.detail).toMatch(/downloads of this account are streaming already/);
    expect(Number(busy.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect((await world.http.get('/api/v1/leads').set(who.auth)).status).toBe(200);
    await world.api.deps.redis.zrem(slots, elsewhere);
    const done = await world.http.get('/api/v1/leads.jsonl').set(who.auth);
    expect(done.status).toBe(200);
    // Its own place was given back when it ended.
    expect((await world.http.get('/api/v1/leads.csv').set(who.auth)).status).toBe(200);
  });

  it('when 20 leases are asked for at once with room for 2, then exactly 2 are granted', async () => {
    const key = world.api.deps.producer.keys.account(`acc_race${Date.now()}`).exportSlots;
    const granted = await Promise.all(Array.from({ length: 20 }, () => acquireSlot(world.api.deps.redis, key, randomUUID(), 2, 60_000)));
    expect(granted.filter(Boolean)).toHaveLength(2);
  });
});

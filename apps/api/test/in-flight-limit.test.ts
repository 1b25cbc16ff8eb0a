import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount } from '../../../test/factories';

// Decision 050: an account's requests in progress at once in an API process are bounded whatever its rate limits
// (here raised far above their defaults, as an operator may): one more answers 429 too_many_in_flight at once, another
// account is served meanwhile, and each place is given back when its answer ends.
const IN_FLIGHT = 2;
let world: TestWorld;

beforeAll(async () => {
  world = await startWorld({
    // No worker: a sync generate waits out its `Prefer: wait`, a request held in flight for as long as the test needs.
    worker: false,
    env: { API_IN_FLIGHT_PER_ACCOUNT: String(IN_FLIGHT), RATE_LIMIT_GENERATE_PER_MIN: '100000', RATE_LIMIT_READ_PER_MIN: '100000' },
  });
});
afterAll(() => world.close());

const body = { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 5 };

describe('requests in flight per account', () => {
  it('when an account has API_IN_FLIGHT_PER_ACCOUNT requests in progress, then its next gets 429 too_many_in_flight with Retry-After, another account is served, and a place frees when an answer ends', async () => {
    const flood = await buildAccount(world.db);
    const other = await buildAccount(world.db);
    // Two sync generates held (no worker takes their jobs): 202 after their 2 s wait.
    const held = Array.from({ length: IN_FLIGHT }, () => generate(world, flood, body, { prefer: 'wait=2' }).then((r) => r));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const refused = await world.http.get('/api/v1/account').set(flood.auth);
    expect({ status: refused.status, code: refused.body.code, limit: refused.body.limit }).toEqual({
      status: 429,
      code: 'too_many_in_flight',
      limit: IN_FLIGHT,
    });
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(Number(refused.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    // Refused before its rate limit counted it: no RateLimit header of a window.
    expect(refused.get('RateLimit')).toBeUndefined();
    expect((await world.http.get('/api/v1/account').set(other.auth)).status).toBe(200);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([202, 202]);
    // Both places given back: the account's next requests go through.
    const after = await Promise.all([world.http.get('/api/v1/account').set(flood.auth), world.http.get('/api/v1/account').set(flood.auth)]);
    expect(after.map((r) => r.status)).toEqual([200, 200]);
  });

  it('when a client goes away before its answer, then its place is given back', async () => {
    const who = await buildAccount(world.db);
    const controller = new AbortController();
    const url = `http://127.0.0.1:${world.api.port}/api/v1/leads/generate`;
    const gone = Array.from({ length: IN_FLIGHT }, (_, i) =>
      fetch(url, {
        method: 'POST',
        headers: { ...who.auth, 'content-type': 'application/json', prefer: 'wait=3', 'idempotency-key': `gone-${Date.now()}-${i}` },
        body: JSON.stringify(body),
        signal: controller.signal,
      }).catch(() => null),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await world.http.get('/api/v1/account').set(who.auth)).status).toBe(429);
    controller.abort();
    await Promise.all(gone);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await world.http.get('/api/v1/account').set(who.auth)).status).toBe(200);
  });
});

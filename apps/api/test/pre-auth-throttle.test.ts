import { randomBytes } from 'node:crypto';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';
import { rawRequest } from '../../../test/raw-http';

// Keys PostgreSQL is asked about, per client address and minute, before the throttle answers 429.
const PER_MIN = 5;

let world: TestWorld;
let account: TestAccount;
let keyLookups = 0;

beforeAll(async () => {
  // AUTH_CACHE_MS=0: every request of a known key asks PostgreSQL, so its give-back is exercised each time.
  world = await startWorld({ worker: false, env: { RATE_LIMIT_UNKNOWN_KEY_PER_MIN: String(PER_MIN), AUTH_CACHE_MS: '0' } });
  account = await buildAccount(world.db, { credits: 0 });
  // Counts the API's key lookups: the statement authenticate_api_key runs (packages/db/src/accounts.ts).
  const sql = world.api.deps.db.sql;
  const query = sql.query.bind(sql) as (...args: unknown[]) => unknown;
  (sql as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('authenticate_api_key')) keyLookups += 1;
    return query(...args);
  };
});
afterAll(() => world.close());

const randomKey = () => `lg_live_${randomBytes(20).toString('hex')}`;
const getAccount = (from: string, key: string) =>
  rawRequest(world.api.port, { method: 'GET', path: '/api/v1/account', headers: { Authorization: `Bearer ${key}` }, localAddress: from });

describe('the unknown-key throttle before authentication', () => {
  it('when one address sends random keys, then PostgreSQL is asked about the first few only, the rest get 429 from Redis', async () => {
    const before = keyLookups;
    const statuses: number[] = [];
    for (let i = 0; i < 30; i += 1) statuses.push((await getAccount('127.0.2.1', randomKey())).status);
    expect(statuses.slice(0, PER_MIN)).toEqual(Array(PER_MIN).fill(401));
    expect(statuses.slice(PER_MIN)).toEqual(Array(30 - PER_MIN).fill(429));
    expect(keyLookups - before).toBe(PER_MIN);
    const refused = await getAccount('127.0.2.1', randomKey());
    expect(refused.body).toMatchObject({ code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another address is counted apart.
    expect((await getAccount('127.0.2.2', randomKey())).status).toBe(401);
  });

  it('when 100 random keys arrive at once from one address, then PostgreSQL is asked at most the limit', async () => {
    const before = keyLookups;
    const statuses = (await Promise.all(Array.from({ length: 100 }, () => getAccount('127.0.2.3', randomKey())))).map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(PER_MIN);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100 - PER_MIN);
    expect(keyLookups - before).toBe(PER_MIN);
  });

  it('when a known key is used many times from one address, then it is never throttled (each lookup is given back)', async () => {
    for (let i = 0; i < PER_MIN * 3; i += 1) expect((await getAccount('127.0.2.4', account.apiKey)).status).toBe(200);
    // The window still has all its room for unknown keys.
    const statuses: number[] = [];
    for (let i = 0; i < PER_MIN + 1; i += 1) statuses.push((await getAccount('127.0.2.4', randomKey())).status);
    expect(statuses).toEqual([...Array(PER_MIN).fill(401), 429]);
  });

  it('when one unknown key is sent again, then it is answered 401 from memory: neither PostgreSQL nor the window is asked', async () => {
    const key = randomKey();
    const before = keyLookups;
    expect((await getAccount('127.0.2.5', key)).status).toBe(401);
    for (let i = 0; i < PER_MIN * 2; i += 1) {
      const res = await getAccount('127.0.2.5', key);
      expect({ status: res.status, code: res.body?.code }).toEqual({ status: 401, code: 'unauthorized' });
    }
    expect(keyLookups - before).toBe(1);
    // The one lookup is all the window counted: the address can still ask about new keys.
    expect((await getAccount('127.0.2.5', randomKey())).status).toBe(401);
  });

  it('when twenty requests of a key not in memory come at once from one address, then the window is asked once (issue 32)', async () => {
    const redis = world.api.deps.redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    // The script is defined on the connection by its first use (an unknown key's check).
    expect((await getAccount('127.0.2.9', randomKey())).status).toBe(401);
    const admit = redis.rateLimitAdmitWindow!.bind(redis);
    // Each check answers late, so the twenty arrive while the first one is under way.
    const checks = jest
      .spyOn(redis, 'rateLimitAdmitWindow')
      .mockImplementation((...args) => new Promise((resolve) => setTimeout(resolve, 100)).then(() => admit(...args)));
    try {
      const before = keyLookups;
      const answers = await Promise.all(Array.from({ length: 20 }, () => getAccount('127.0.2.9', account.apiKey)));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      expect(checks).toHaveBeenCalledTimes(1);
      expect(keyLookups - before).toBe(1);
      // Another address's requests are its own window's: checked apart.
      const other = await Promise.all(Array.from({ length: 3 }, () => getAccount('127.0.2.10', account.apiKey)));
      expect(other.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(checks).toHaveBeenCalledTimes(2);
    } finally {
      checks.mockRestore();
    }
    // What was counted was given back: the address still has its whole window for unknown keys.
    const statuses: number[] = [];
    for (let i = 0; i < PER_MIN; i += 1) statuses.push((await getAccount('127.0.2.9', randomKey())).status);
    // (the one unknown key above is counted)
    expect(statuses).toEqual([...Array(PER_MIN - 1).fill(401), 429]);
  });

  it('when a key is revoked, then it is refused from the next request on, and then from memory', async () => {
    const other = await buildAccount(world.db, { credits: 0 });
    expect((await getAccount('127.0.2.6', other.apiKey)).status).toBe(200);
    const { revokeKey } = await import('@leadgen/db');
    await revokeKey(world.db, { apiKey: other.apiKey });
    const before = keyLookups;
    expect((await getAccount('127.0.2.6', other.apiKey)).status).toBe(401);
    expect((await getAccount('127.0.2.6', other.apiKey)).status).toBe(401);
    expect(keyLookups - before).toBe(1);
  });
});

describe('the unknown-key throttle never refuses a valid key (issue 31, finding 1)', () => {
  it('when one address has sent more made-up keys than the limit, then a valid key from it still gets 200, every time', async () => {
    const from = '127.0.2.7';
    // Made-up keys over the limit wait for the directory's next read (at most a second), so they come at once.
    const flood = await Promise.all(Array.from({ length: PER_MIN * 12 + 1 }, () => getAccount(from, randomKey())));
    expect(flood.filter((r) => r.status === 429)).toHaveLength(PER_MIN * 11 + 1);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i += 1) statuses.push((await getAccount(from, account.apiKey)).status);
    expect(statuses).toEqual(Array(20).fill(200));
    // ...and the made-up keys are still refused by Redis, without a key lookup.
    const before = keyLookups;
    expect((await getAccount(from, randomKey())).status).toBe(429);
    expect(keyLookups).toBe(before);
  });

  it('when a key is issued during the flood, then it is let through too (the directory reads keys created since)', async () => {
    const from = '127.0.2.8';
    await Promise.all(Array.from({ length: PER_MIN + 1 }, () => getAccount(from, randomKey())));
    const fresh = await buildAccount(world.db, { credits: 0 });
    expect((await getAccount(from, fresh.apiKey)).status).toBe(200);
  });
});

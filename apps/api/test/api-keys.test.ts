import { revokeKey } from '@leadgen/db';
import { announceKeyEpoch } from '@leadgen/rate-limits';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, buildApiKey } from '../../../test/factories';

describe('API keys that expire and say when they were used', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when a key has expired, then 401 unauthorized like an unknown key; before that it works', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const soon = await buildApiKey(world.db, account.accountId, { expiresAt: new Date(Date.now() + 60_000) });
    expect((await world.http.get('/api/v1/account').set(soon.auth)).status).toBe(200);
    await world.db.apiKey.update({ where: { id: soon.keyId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const refused = await world.http.get('/api/v1/account').set(soon.auth);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');
    expect(refused.get('WWW-Authenticate')).toMatch(/^Bearer/);
  });

  it('when a key is used, then its last use is recorded, at most once an hour', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const { id: keyId } = (await world.db.apiKey.findFirst({ where: { accountId: account.accountId } }))!;
    expect((await world.db.apiKey.findUnique({ where: { id: keyId } }))?.lastUsedAt).toBeNull();
    await world.http.get('/api/v1/account').set(account.auth);
    const first = (await world.db.apiKey.findUnique({ where: { id: keyId } }))!.lastUsedAt!;
    expect(Date.now() - first.getTime()).toBeLessThan(10_000);
    await world.http.get('/api/v1/account').set(account.auth);
    expect((await world.db.apiKey.findUnique({ where: { id: keyId } }))!.lastUsedAt).toEqual(first);
    // An hour later the next request records it again.
    const anHourAgo = new Date(Date.now() - 3_600_001);
    await world.db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: anHourAgo } });
    await world.http.get('/api/v1/account').set(account.auth);
    expect((await world.db.apiKey.findUnique({ where: { id: keyId } }))!.lastUsedAt!.getTime()).toBeGreaterThan(anHourAgo.getTime());
  });
});

describe('live keys kept in memory for AUTH_CACHE_MS', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { AUTH_CACHE_MS: '400' } });
  });
  afterAll(() => world.close());

  it('when a key is revoked, then it still works at most AUTH_CACHE_MS on a process that knew it, then 401', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    expect((await world.http.get('/api/v1/account').set(account.auth)).status).toBe(200);
    await revokeKey(world.db, { apiKey: account.apiKey });
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await world.http.get('/api/v1/account').set(account.auth)).status).toBe(401);
  });

  it('when a key is revoked and its epoch announced, then the very next request is 401 although it was cached', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    expect((await world.http.get('/api/v1/account').set(account.auth)).status).toBe(200);
    const revocation = (await revokeKey(world.db, { apiKey: account.apiKey }))!;
    await announceKeyEpoch(world.api.deps.redis, world.api.deps.producer.keys.account(account.accountId).keyEpoch, revocation.keyEpoch);
    expect((await world.http.get('/api/v1/account').set(account.auth)).status).toBe(401);
  });

  it('when a cached key is used after another key of its account was revoked, then it is read again once and still works', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const other = await buildApiKey(world.db, account.accountId);
    expect((await world.http.get('/api/v1/account').set(account.auth)).status).toBe(200);
    const revocation = (await revokeKey(world.db, { keyId: other.keyId }))!;
    await announceKeyEpoch(world.api.deps.redis, world.api.deps.producer.keys.account(account.accountId).keyEpoch, revocation.keyEpoch);
    const query = jest.spyOn(world.api.deps.db.sql, 'query');
    try {
      expect((await world.http.get('/api/v1/account').set(account.auth)).status).toBe(200);
      expect((await world.http.get('/api/v1/account').set(account.auth)).status).toBe(200);
      const reads = query.mock.calls.map((call) => String(call[0])).filter((text) => text.includes('authenticate_api_key('));
      expect(reads).toHaveLength(1);
    } finally {
      query.mockRestore();
    }
  });

  it('when a cached key reaches its expiry, then it is refused at once, cache or not', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const key = await buildApiKey(world.db, account.accountId, { expiresAt: new Date(Date.now() + 300) });
    expect((await world.http.get('/api/v1/account').set(key.auth)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 320));
    expect((await world.http.get('/api/v1/account').set(key.auth)).status).toBe(401);
  });

  it('when twenty requests of a key not in memory come at once, then PostgreSQL is asked about it once and all are served', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const unknown = `lg_live_${'x'.repeat(40)}`;
    const query = jest.spyOn(world.api.deps.db.sql, 'query');
    try {
      const answers = await Promise.all([
        ...Array.from({ length: 20 }, () => world.http.get('/api/v1/account').set(account.auth)),
        ...Array.from({ length: 5 }, () => world.http.get('/api/v1/account').set({ Authorization: `Bearer ${unknown}` })),
      ]);
      expect(answers.map((a) => a.status)).toEqual([...Array<number>(20).fill(200), ...Array<number>(5).fill(401)]);
      const reads = query.mock.calls.map((call) => String(call[0])).filter((text) => text.includes('authenticate_api_key('));
      // one for the live key, one for the unknown one (each once, however many of its requests were waiting)
      expect(reads).toHaveLength(2);
    } finally {
      query.mockRestore();
    }
  });

  it('when a known key is used again within AUTH_CACHE_MS, then no query is made for it', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    expect((await world.http.get('/api/v1/account').set(account.auth)).status).toBe(200);
    const query = jest.spyOn(world.api.deps.db.sql, 'query');
    try {
      expect((await world.http.get('/api/v1/account').set(account.auth)).status).toBe(200);
      const calls = query.mock.calls.map((call) => String(call[0]));
      expect(calls.filter((text) => text.includes('authenticate_api_key('))).toEqual([]);
    } finally {
      query.mockRestore();
    }
  });
});

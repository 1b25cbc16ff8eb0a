import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, buildApiKey, type TestAccount } from '../../../test/factories';

// Keys an account manages itself (issue 31, finding 9; decision 036).

const bearer = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });

describe('API keys managed over the API', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    // A cache as in production: changes must reach a process that holds the key in memory.
    world = await startWorld({ worker: false, env: { AUTH_CACHE_MS: '60000' } });
    account = await buildAccount(world.db, { credits: 1000 });
  });
  afterAll(() => world.close());

  it('when a key is created, then its secret is in that answer only, it works at once, and the listing shows it without the secret', async () => {
    const created = await world.http
      .post('/api/v1/keys')
      .set(account.auth)
      .send({ name: 'crm sync', scopes: ['read'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'crm sync', mode: 'live', scopes: ['read'], revokedAt: null, expiresAt: null });
    expect(created.body.apiKey).toMatch(/^lg_live_[0-9a-z]{40}$/);
    expect(created.body.prefix).toBe(created.body.apiKey.slice(0, 12));
    expect(created.get('Location')).toMatch(new RegExp(`/api/v1/keys/${created.body.keyId}$`));
    // The new key is looked up as any key is (authenticate_api_key), from its first request.
    const me = await world.http.get('/api/v1/account').set(bearer(created.body.apiKey));
    expect(me.status).toBe(200);
    expect(me.body.accountId).toBe(account.accountId);

    const listed = await world.http.get('/api/v1/keys').set(account.auth);
    expect(listed.status).toBe(200);
    const item = listed.body.items.find((k: { keyId: string }) => k.keyId === created.body.keyId);
    expect(item).toMatchObject({ name: 'crm sync', scopes: ['read'] });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.apiKey);
    expect(item.lastUsedAt).not.toBeNull();

    const audit = await world.http.get('/api/v1/audit-events?action=key.created').set(account.auth);
    expect(audit.body.items[0].summary).toMatchObject({ keyId: created.body.keyId, scopes: ['read'], mode: 'live' });
    expect(JSON.stringify(audit.body)).not.toContain(created.body.apiKey);
  });

  it('when a key lacks the scope an endpoint needs, then 403 insufficient_scope names it, and the endpoints it holds still answer', async () => {
    const reader = await buildApiKey(world.db, account.accountId, { scopes: ['read'] });
    expect((await world.http.get('/api/v1/leads/jobs').set(reader.auth)).status).toBe(200);
    const cases: Array<[string, string, string]> = [
      ['post', '/api/v1/leads/generate', 'generate'],
      ['put', '/api/v1/suppressions', 'suppressions'],
      ['post', '/api/v1/webhooks', 'webhooks'],
      ['post', '/api/v1/monitors', 'monitors'],
      ['get', '/api/v1/keys', 'keys'],
      ['post', '/api/v1/keys', 'keys'],
    ];
    for (const [method, path, scope] of cases) {
      const answer = await (world.http as unknown as Record<string, (p: string) => import('supertest').Test>)[method]!(path)
        .set(reader.auth)
        .set('Idempotency-Key', `scope-${scope}`)
        .send({});
      expect([path, answer.status, answer.body.code, answer.body.requiredScope]).toEqual([path, 403, 'insufficient_scope', scope]);
      expect(answer.get('Content-Type')).toMatch(/application\/problem\+json/);
      expect(answer.get('WWW-Authenticate')).toContain(`scope="${scope}"`);
      expect(answer.body.detail).toContain(scope);
    }
    // Nothing was made by the refused calls.
    expect(await world.db.job.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it('when a key asks for a scope it does not hold, then 403 scope_not_held, and by default a new key gets the scopes of its creator', async () => {
    const keeper = await buildApiKey(world.db, account.accountId, { scopes: ['read', 'keys'] });
    const escalate = await world.http
      .post('/api/v1/keys')
      .set(keeper.auth)
      .send({ scopes: ['read', 'generate', 'webhooks'] });
    expect(escalate.status).toBe(403);
    expect(escalate.body).toMatchObject({ code: 'scope_not_held', scopes: ['generate', 'webhooks'] });
    const inherited = await world.http.post('/api/v1/keys').set(keeper.auth).send({});
    expect(inherited.status).toBe(201);
    expect(inherited.body.scopes).toEqual(['read', 'keys']);
    expect(inherited.body.createdByKeyId).toBe(keeper.keyId);
  });

  it('when a key is revoked over the API, then the very next request with it is 401 although this process had it cached', async () => {
    const victim = (await world.http.post('/api/v1/keys').set(account.auth).send({ name: 'short-lived' })).body;
    expect((await world.http.get('/api/v1/account').set(bearer(victim.apiKey))).status).toBe(200);
    const revoked = await world.http.delete(`/api/v1/keys/${victim.keyId}`).set(account.auth);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    const refused = await world.http.get('/api/v1/account').set(bearer(victim.apiKey));
    expect(refused.status).toBe(401);
    // Idempotent: the same body, the first revocation's time kept.
    const again = await world.http.delete(`/api/v1/keys/${victim.keyId}`).set(account.auth);
    expect(again.status).toBe(200);
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
    // Listed only when asked for.
    const active = await world.http.get('/api/v1/keys').set(account.auth);
    expect(active.body.items.map((k: { keyId: string }) => k.keyId)).not.toContain(victim.keyId);
    const all = await world.http.get('/api/v1/keys?includeRevoked=true').set(account.auth);
    expect(all.body.items.map((k: { keyId: string }) => k.keyId)).toContain(victim.keyId);
  });

  it('when a cached key is given an earlier expiry, then it is refused from that expiry on, on this process too', async () => {
    const key = (await world.http.post('/api/v1/keys').set(account.auth).send({ name: 'rotating' })).body;
    expect((await world.http.get('/api/v1/account').set(bearer(key.apiKey))).status).toBe(200);
    const soon = new Date(Date.now() + 600).toISOString();
    const changed = await world.http.patch(`/api/v1/keys/${key.keyId}`).set(account.auth).send({ name: 'rotating out', expiresAt: soon });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'rotating out', expiresAt: soon });
    expect((await world.http.get('/api/v1/account').set(bearer(key.apiKey))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 650));
    expect((await world.http.get('/api/v1/account').set(bearer(key.apiKey))).status).toBe(401);
  });

  it('when the bodies or ids are wrong, then 400 with every problem, and 404 for a key of another account', async () => {
    const bad = await world.http
      .post('/api/v1/keys')
      .set(account.auth)
      .send({ scopes: ['everything'], expiresAt: '2020-01-01T00:00:00Z', name: '', color: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/color', '#/expiresAt', '#/name', '#/scopes/0']);
    const noChange = await world.http
      .patch(`/api/v1/keys/${(await buildApiKey(world.db, account.accountId)).keyId}`)
      .set(account.auth)
      .send({ scopes: ['read'] });
    expect(noChange.status).toBe(400);
    const other = await buildAccount(world.db, { credits: 0 });
    const theirs = await buildApiKey(world.db, other.accountId);
    for (const answer of [
      await world.http.get(`/api/v1/keys/${theirs.keyId}`).set(account.auth),
      await world.http.delete(`/api/v1/keys/${theirs.keyId}`).set(account.auth),
      await world.http.patch(`/api/v1/keys/${theirs.keyId}`).set(account.auth).send({ name: 'mine now' }),
      await world.http.get('/api/v1/keys/key_%00').set(account.auth),
    ])
      expect([answer.status, answer.body.code]).toEqual([404, 'api_key_not_found']);
    expect((await world.http.get('/api/v1/account').set(theirs.auth)).status).toBe(200);
  });

  it('when the account holds 100 live keys, then one more is 409 api_key_limit, and a revocation makes room', async () => {
    const crowded = await buildAccount(world.db, { credits: 0 });
    const keys = await Promise.all(Array.from({ length: 99 }, () => buildApiKey(world.db, crowded.accountId)));
    const refused = await world.http.post('/api/v1/keys').set(crowded.auth).send({});
    expect([refused.status, refused.body.code, refused.body.limit]).toEqual([409, 'api_key_limit', 100]);
    expect((await world.http.delete(`/api/v1/keys/${keys[0]!.keyId}`).set(crowded.auth)).status).toBe(200);
    expect((await world.http.post('/api/v1/keys').set(crowded.auth).send({})).status).toBe(201);
  });

  it("when a test key is asked for, then it is lg_test_ with its creator's scopes at most, and a test key makes no live key", async () => {
    const created = await world.http
      .post('/api/v1/keys')
      .set(account.auth)
      .send({ mode: 'test', name: 'staging', scopes: ['read', 'generate'] });
    expect(created.status).toBe(201);
    expect(created.body.apiKey).toMatch(/^lg_test_[0-9a-z]{40}$/);
    expect(created.body).toMatchObject({ mode: 'test', scopes: ['read', 'generate'] });
    const tester = (
      await world.http
        .post('/api/v1/keys')
        .set(account.auth)
        .send({ mode: 'test', scopes: ['read', 'keys'] })
    ).body;
    const live = await world.http.post('/api/v1/keys').set(bearer(tester.apiKey)).send({ mode: 'live' });
    expect([live.status, live.body.code]).toEqual([403, 'test_mode_unsupported']);
    const inherited = await world.http.post('/api/v1/keys').set(bearer(tester.apiKey)).send({});
    expect(inherited.body).toMatchObject({ mode: 'test', scopes: ['read', 'keys'] });
    const escalate = await world.http
      .post('/api/v1/keys')
      .set(bearer(tester.apiKey))
      .send({ scopes: ['generate'] });
    expect([escalate.status, escalate.body.code]).toEqual([403, 'scope_not_held']);
    const listed = await world.http.get('/api/v1/keys?mode=test').set(account.auth);
    expect(listed.body.items.length).toBeGreaterThanOrEqual(3);
    expect(listed.body.items.every((k: { mode: string }) => k.mode === 'test')).toBe(true);
  });
});

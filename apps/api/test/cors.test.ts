import { loadConfig } from '@leadgen/config';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

// CORS (issue 31, finding 11; decision 036): preflights of the API answered, for the origins of CORS_ALLOWED_ORIGINS only.

const APP = 'https://app.example.com';

describe('CORS with CORS_ALLOWED_ORIGINS set', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld({
      worker: false,
      env: { CORS_ALLOWED_ORIGINS: `${APP}, http://localhost:5173`, OPERATOR_PASSWORD: 'a-long-operator-password-for-tests' },
    });
    account = await buildAccount(world.db, { credits: 0 });
  });
  afterAll(() => world.close());

  it('when a listed origin preflights an API path, then 204 grants the path’s methods and the headers a client sends', async () => {
    const preflight = await world.http
      .options('/api/v1/leads/jobs/job_0123456789abcdefghijklmn')
      .set('Origin', APP)
      .set('Access-Control-Request-Method', 'DELETE')
      .set('Access-Control-Request-Headers', 'authorization');
    expect(preflight.status).toBe(204);
    expect(preflight.get('Access-Control-Allow-Origin')).toBe(APP);
    expect(preflight.get('Access-Control-Allow-Methods')).toBe('GET, DELETE');
    expect(preflight.get('Access-Control-Allow-Headers')).toContain('Authorization');
    expect(preflight.get('Access-Control-Allow-Headers')).toContain('Idempotency-Key');
    expect(preflight.get('Access-Control-Allow-Credentials')).toBeUndefined();
    expect(preflight.get('Vary')).toContain('Origin');
    expect(preflight.get('Allow')).toBe('GET, DELETE, OPTIONS');
  });

  it('when the listed origin then calls, then the answer (an error too) is readable: Allow-Origin and the exposed headers', async () => {
    const ok = await world.http.get('/api/v1/account').set('Origin', APP).set(account.auth);
    expect(ok.status).toBe(200);
    expect(ok.get('Access-Control-Allow-Origin')).toBe(APP);
    expect(ok.get('Access-Control-Expose-Headers')).toContain('RateLimit');
    const refused = await world.http.get('/api/v1/account').set('Origin', 'http://localhost:5173');
    expect(refused.status).toBe(401);
    expect(refused.get('Access-Control-Allow-Origin')).toBe('http://localhost:5173');
  });

  it('when an unlisted origin preflights, or asks for a method the path lacks, then no grant; an unknown path stays 404', async () => {
    const stranger = await world.http
      .options('/api/v1/leads/generate')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(stranger.status).toBe(204);
    expect(stranger.get('Access-Control-Allow-Origin')).toBeUndefined();
    const call = await world.http.get('/api/v1/account').set('Origin', 'https://evil.example').set(account.auth);
    expect(call.get('Access-Control-Allow-Origin')).toBeUndefined();
    const wrongMethod = await world.http.options('/api/v1/leads/generate').set('Origin', APP).set('Access-Control-Request-Method', 'PUT');
    expect(wrongMethod.get('Access-Control-Allow-Origin')).toBeUndefined();
    const unknown = await world.http.options('/api/v1/nothing-here').set('Origin', APP).set('Access-Control-Request-Method', 'GET');
    expect(unknown.status).toBe(404);
  });

  it('when the operator board or /docs is preflighted, then never a grant, whatever the origin', async () => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues', '/docs']) {
      const answer = await world.http.options(path).set('Origin', APP).set('Access-Control-Request-Method', 'GET');
      expect([path, answer.get('Access-Control-Allow-Origin')]).toEqual([path, undefined]);
      expect(answer.status).not.toBe(204);
    }
    const board = await world.http.get('/admin/queues').set('Origin', APP);
    expect(board.get('Access-Control-Allow-Origin')).toBeUndefined();
  });
});

describe('CORS by default', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when no origin is configured, then a preflight answers 204 with Allow and no grant (it was 405), and no answer carries Allow-Origin', async () => {
    const preflight = await world.http.options('/api/v1/leads/generate').set('Origin', APP).set('Access-Control-Request-Method', 'POST');
    expect(preflight.status).toBe(204);
    expect(preflight.get('Allow')).toBe('POST, OPTIONS');
    expect(preflight.get('Access-Control-Allow-Origin')).toBeUndefined();
    const meta = await world.http.get('/api/v1/meta/tariffs').set('Origin', APP);
    expect(meta.get('Access-Control-Allow-Origin')).toBeUndefined();
  });

  it('when CORS_ALLOWED_ORIGINS is not a list of origins, then the configuration names it', () => {
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: 'https://a.example, https://b.example:8443' }).http.corsAllowedOrigins).toEqual([
      'https://a.example',
      'https://b.example:8443',
    ]);
    expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: 'https://a.example/app' })).toThrow(/CORS_ALLOWED_ORIGINS/);
    expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: '*' })).toThrow(/CORS_ALLOWED_ORIGINS/);
    expect(loadConfig({}).http.corsAllowedOrigins).toEqual([]);
  });
});

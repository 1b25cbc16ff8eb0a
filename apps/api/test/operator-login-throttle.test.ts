import { logger } from '@leadgen/logger';
import { startWorld, type TestWorld } from '../../../test/harness';
import { rawRequest } from '../../../test/raw-http';
import { clientNetwork } from '../src/http/login-throttle';
import { DEVICE_COOKIE, operatorDevices } from '../src/http/operator-device';

// Defaults of login-throttle.ts: 10 failures per client address, 30 per user name, in 15 minutes.
const PER_CLIENT = 10;
const PASSWORD = 'correct horse battery';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('Bull Board login throttling', () => {
  let world: TestWorld;
  beforeEach(async () => {
    // A world per test: a fresh queue prefix is a fresh set of counters.
    world = await startWorld({ worker: false, env: { OPERATOR_PASSWORD: PASSWORD } });
  });
  afterEach(() => world.close());

  /** GET /admin/queues from a loopback address of its own, so a test can be several clients. */
  const login = (from: string, user: string, password: string, cookie?: string) =>
    rawRequest(world.api.port, {
      method: 'GET',
      path: '/admin/queues',
      headers: { Authorization: basic(user, password), ...(cookie ? { Cookie: cookie } : {}) },
      localAddress: from,
    });
  /** The device cookie a successful login set, as a browser sends it back. */
  const deviceCookie = (res: Awaited<ReturnType<typeof login>>) => {
    const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${DEVICE_COOKIE}=`));
    if (!set) throw new Error('no device cookie was set');
    return set.split(';')[0]!;
  };
  /** A stranger's guesses: the operator's user name from 4 addresses (over the per-user 30), and 10 from the operator's own. */
  const strangerGuesses = async () => {
    for (let client = 3; client < 7; client += 1) for (let i = 0; i < 8; i += 1) await login(`127.0.0.${client}`, 'operator', `guess-${i}`);
    for (let i = 0; i < PER_CLIENT; i += 1) await login('127.0.0.1', 'operator', `guess-${i}`);
  };

  it("when a stranger fails the operator's user name from many addresses and from the operator's own, then the operator's browser, known by its device cookie, still logs in", async () => {
    const first = await login('127.0.0.1', 'operator', PASSWORD);
    expect(first.status).toBe(200);
    const cookie = deviceCookie(first);
    expect(first.headers['set-cookie']?.[0]).toMatch(/; Path=\/admin\/queues; HttpOnly; SameSite=Strict/);
    await strangerGuesses();
    // A new device is held back (both of its windows are full), the known one is not.
    expect((await login('127.0.0.1', 'operator', PASSWORD)).status).toBe(429);
    expect((await login('127.0.0.1', 'operator', PASSWORD, cookie)).status).toBe(200);
    expect((await login('127.0.0.8', 'operator', PASSWORD, `other=1; ${cookie}`)).status).toBe(200);
  });

  it('when a device cookie is forged, altered or signed under another password, then it is not a known device', async () => {
    const genuine = deviceCookie(await login('127.0.0.11', 'operator', PASSWORD));
    await strangerGuesses();
    const elsewhere = operatorDevices('another password entirely').issue(null, false).split(';')[0]!;
    for (const cookie of [elsewhere, `${genuine.slice(0, -2)}xx`, `${DEVICE_COOKIE}=abc.1.def`])
      expect((await login('127.0.0.1', 'operator', PASSWORD, cookie)).status).toBe(429);
  });

  it('when a known device fails too often, then that device waits, and its failures count against no address or user name', async () => {
    const cookie = deviceCookie(await login('127.0.0.1', 'operator', PASSWORD));
    for (let i = 0; i < PER_CLIENT; i += 1) expect((await login('127.0.0.1', 'operator', `guess-${i}`, cookie)).status).toBe(401);
    expect((await login('127.0.0.1', 'operator', PASSWORD, cookie)).status).toBe(429);
    expect((await login('127.0.0.1', 'operator', PASSWORD)).status).toBe(200);
  });

  it('when clients are counted, then an IPv6 address by its /64 (one host holds all of it), an IPv4 one whole', () => {
    expect(clientNetwork('2001:db8:1:2:aaaa::1')).toBe(clientNetwork('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientNetwork('2001:db8:1:2::1')).not.toBe(clientNetwork('2001:db8:1:3::1'));
    expect([clientNetwork('::ffff:192.0.2.7'), clientNetwork('192.0.2.7'), clientNetwork('192.0.2.8')]).toEqual([
      '192.0.2.7',
      '192.0.2.7',
      '192.0.2.8',
    ]);
  });

  it('when one client fails too often, then 429 with Retry-After even for the right password, while other clients still log in', async () => {
    for (let i = 0; i < PER_CLIENT; i += 1) expect((await login('127.0.0.1', 'operator', `guess-${i}`)).status).toBe(401);
    const blocked = await login('127.0.0.1', 'operator', PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ code: 'rate_limited', requestId: blocked.headers['x-request-id'] });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800);
    expect((await login('127.0.0.2', 'operator', PASSWORD)).status).toBe(200);
  });

  it('when a guesser spreads one user name over many clients, then that user name is throttled for every client', async () => {
    // 4 clients x 8 failures: each under the per-client limit, together over the per-user 30.
    for (let client = 3; client < 7; client += 1) {
      for (let i = 0; i < 8; i += 1) await login(`127.0.0.${client}`, 'operator', `guess-${i}`);
    }
    expect((await login('127.0.0.9', 'operator', PASSWORD)).status).toBe(429);
    // Another user name is counted apart (and still is not the operator).
    expect((await login('127.0.0.9', 'admin', 'x')).status).toBe(401);
  });

  it('when a login fails, then it is logged with the client and user name, never the password', async () => {
    const warn = jest.spyOn(logger, 'warn');
    try {
      await login('127.0.0.1', 'mallory', 'hunter2-secret');
      const calls = warn.mock.calls as unknown as Array<[string, Record<string, unknown>]>;
      const call = calls.find(([message]) => message === 'operator login failed');
      expect(call?.[1]).toMatchObject({ client: expect.stringContaining('127.0.0.1'), user: 'mallory', failures: { client: 1, user: 1 } });
      expect(JSON.stringify(warn.mock.calls)).not.toContain('hunter2');
    } finally {
      warn.mockRestore();
    }
  });

  it('when 200 logins arrive at once from one client, the right password 20th, then exactly 10 passwords are looked at and the right one is refused', async () => {
    const attempts = Array.from({ length: 200 }, (_, i) => login('127.0.0.1', 'operator', i === 19 ? PASSWORD : `guess-${i}`));
    const statuses = (await Promise.all(attempts)).map((res) => res.status);
    const looked = statuses.filter((status) => status !== 429);
    // The limit counts attempts, whatever order they are served in: never more than 10 evaluated.
    expect(looked.length).toBe(PER_CLIENT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(200 - PER_CLIENT);
    // Which 10 got through depends on arrival; the right password got a 200 only if it was one of them.
    expect(looked.filter((status) => status === 200).length).toBeLessThanOrEqual(1);
  });

  it('when 200 logins for one user name arrive at once from 200 clients, then at most 30 passwords are looked at', async () => {
    const attempts = Array.from({ length: 200 }, (_, i) => login(`127.0.1.${i + 1}`, 'operator', `guess-${i}`));
    const statuses = (await Promise.all(attempts)).map((res) => res.status);
    expect({
      looked: statuses.filter((status) => status === 401).length,
      refused: statuses.filter((status) => status === 429).length,
    }).toEqual({
      looked: 30,
      refused: 170,
    });
  });

  it('when the operator logs in again and again with the right password, then they are never throttled', async () => {
    for (let i = 0; i < PER_CLIENT * 3; i += 1) expect((await login('127.0.0.1', 'operator', PASSWORD)).status).toBe(200);
    // Failures are still counted after those successes.
    for (let i = 0; i < PER_CLIENT; i += 1) expect((await login('127.0.0.1', 'operator', `guess-${i}`)).status).toBe(401);
    expect((await login('127.0.0.1', 'operator', PASSWORD)).status).toBe(429);
  });

  it('when a request carries no credentials, then it is challenged and not counted', async () => {
    for (let i = 0; i < PER_CLIENT + 2; i += 1) {
      const res = await rawRequest(world.api.port, { method: 'GET', path: '/admin/queues' });
      expect(res.status).toBe(401);
    }
    expect((await login('127.0.0.1', 'operator', PASSWORD)).status).toBe(200);
  });
});

describe('Bull Board security headers', () => {
  let world: TestWorld;
  beforeAll(async () => {
    // Writable, so the board's write routes are reached and their body handling is what is tested.
    world = await startWorld({ worker: false, env: { OPERATOR_PASSWORD: PASSWORD, OPERATOR_BOARD_WRITABLE: '1' } });
  });
  afterAll(() => world.close());

  it.each(['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/favicon-32x32.png'])(
    'when the operator loads %s, then nosniff, a same-origin CSP without framing, and no X-Powered-By',
    async (path) => {
      const res = await rawRequest(world.api.port, { method: 'GET', path, headers: { Authorization: basic('operator', PASSWORD) } });
      expect(res.status).toBe(200);
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    },
  );

  it('when the board API gets a compressed or malformed body, then Problem Details, never the board error page', async () => {
    const auth = { Authorization: basic('operator', PASSWORD), 'Content-Type': 'application/json' };
    const gz = await rawRequest(world.api.port, {
      method: 'PUT',
      path: '/admin/queues/api/queues/google_maps/pause',
      headers: { ...auth, 'Content-Encoding': 'gzip' },
      body: 'xx',
    });
    expect({ status: gz.status, code: gz.body?.code }).toEqual({ status: 415, code: 'unsupported_content_encoding' });
    const bad = await rawRequest(world.api.port, {
      method: 'PUT',
      path: '/admin/queues/api/queues/google_maps/pause',
      headers: auth,
      body: '{"x":',
    });
    expect({ status: bad.status, code: bad.body?.code }).toEqual({ status: 400, code: 'malformed_json' });
    const deep = await rawRequest(world.api.port, {
      method: 'PUT',
      path: '/admin/queues/api/queues/google_maps/pause',
      headers: auth,
      body: `${'['.repeat(8_000)}${']'.repeat(8_000)}`,
    });
    expect({ status: deep.status, code: deep.body?.code, errors: deep.body?.errors }).toEqual({
      status: 400,
      code: 'validation_failed',
      errors: [{ pointer: '#', detail: 'the body nests deeper than 32 levels' }],
    });
  });
});

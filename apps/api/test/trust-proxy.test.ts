import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWorld, type TestWorld } from '../../../test/harness';

// Behind an ingress every request comes from the proxy's address: the login throttle must key on the client the
// proxy reports (TRUST_PROXY), or ten wrong passwords from anyone lock every operator out.
const PASSWORD = 'correct horse battery';
const basic = (password: string) => `Basic ${Buffer.from(`operator:${password}`).toString('base64')}`;

/** A reverse proxy on loopback that forwards to the API and sets X-Forwarded-For to the client it was told it serves. */
async function startProxy(target: number): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, 'x-forwarded-for': String(req.headers['x-test-client']) };
    const upstream = http.request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function login(port: number, client: string, password: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: '127.0.0.1', port, path: '/admin/queues', headers: { Authorization: basic(password), 'X-Test-Client': client } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
      .on('error', reject);
  });
}

describe('the board behind a reverse proxy', () => {
  let world: TestWorld;
  let proxy: { port: number; close(): Promise<void> };
  afterEach(async () => {
    await proxy?.close();
    await world?.close();
  });

  it('when TRUST_PROXY trusts the one proxy, then a guesser locks out only its own address; other operators still log in', async () => {
    world = await startWorld({ worker: false, env: { OPERATOR_PASSWORD: PASSWORD, TRUST_PROXY: 'loopback' } });
    proxy = await startProxy(world.api.port);
    for (let i = 0; i < 10; i += 1) expect(await login(proxy.port, '203.0.113.7', `guess-${i}`)).toBe(401);
    expect(await login(proxy.port, '203.0.113.7', PASSWORD)).toBe(429);
    expect(await login(proxy.port, '198.51.100.20', PASSWORD)).toBe(200);
  });

  it('when TRUST_PROXY is unset, then the proxy is the client (the address the API saw): its lockout is everyone’s', async () => {
    world = await startWorld({ worker: false, env: { OPERATOR_PASSWORD: PASSWORD } });
    proxy = await startProxy(world.api.port);
    for (let i = 0; i < 10; i += 1) await login(proxy.port, '203.0.113.7', `guess-${i}`);
    expect(await login(proxy.port, '198.51.100.20', PASSWORD)).toBe(429);
  });
});

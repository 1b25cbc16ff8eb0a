import { captureLogLines, setLogLevel } from '@leadgen/logger';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

type Line = Record<string, unknown>;

describe('access log', () => {
  let world: TestWorld;
  let account: TestAccount;
  let capture: ReturnType<typeof captureLogLines>;

  beforeAll(async () => {
    world = await startWorld({ worker: false });
    account = await buildAccount(world.db, { credits: 100 });
  });
  beforeEach(() => {
    capture = captureLogLines();
  });
  afterEach(() => {
    capture.stop();
    setLogLevel('silent');
  });
  afterAll(() => world.close());

  const requests = () => capture.lines.filter((l: Line) => l.message === 'request');

  it('when a request is answered at the default level, then one info line names the route template, status, duration and ids', async () => {
    setLogLevel('info');
    const res = await world.http.get('/api/v1/leads/jobs/job_doesnotexist').set(account.auth).set('X-Request-Id', 'req-access-1');
    expect(res.status).toBe(404);
    await new Promise((r) => setImmediate(r));
    expect(requests()).toEqual([
      expect.objectContaining({
        level: 'info',
        method: 'GET',
        route: '/api/v1/leads/jobs/:jobId',
        status: 404,
        ms: expect.any(Number),
        requestId: 'req-access-1',
        accountId: account.accountId,
      }),
    ]);
  });

  it('when a request matches no route, then its route is "unmatched", never the raw path', async () => {
    setLogLevel('info');
    await world.http.get('/no/such/thing/12345');
    await new Promise((r) => setImmediate(r));
    expect(requests()).toEqual([expect.objectContaining({ route: 'unmatched', status: 404 })]);
  });

  it('when probes are answered, then they are logged only at debug', async () => {
    setLogLevel('info');
    await world.http.get('/healthz');
    await world.http.get('/readyz');
    await new Promise((r) => setImmediate(r));
    expect(requests()).toEqual([]);
    setLogLevel('debug');
    await world.http.get('/healthz');
    await new Promise((r) => setImmediate(r));
    expect(requests()).toEqual([expect.objectContaining({ level: 'debug', route: '/healthz', status: 200 })]);
  });
});

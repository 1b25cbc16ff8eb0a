import { startOpsServer, type OpsServer } from './ops-server';
import { checkReadiness, type ReadinessReport } from './readiness';
import { freePort } from '@leadgen/testing';

describe('operations server', () => {
  let report: ReadinessReport;
  let server: OpsServer;
  let base: string;

  beforeAll(async () => {
    server = (await startOpsServer({
      host: '127.0.0.1',
      port: await freePort(),
      readiness: async () => report,
      routes: { '/metrics': (_req, res) => void res.end('# metrics go here\n') },
    }))!;
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.close());

  it('when /healthz is asked, then 200 whatever the dependencies say', async () => {
    report = { ready: false, status: 'unavailable', checks: { postgres: 'unavailable' } };
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('when ready, then /readyz answers 200 with the report', async () => {
    report = { ready: true, status: 'ready', checks: { postgres: 'ok' } };
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ready', checks: { postgres: 'ok' } });
  });

  it('when not ready, then /readyz answers 503 with the reason', async () => {
    report = { ready: false, status: 'unavailable', checks: { postgres: 'schema_behind' }, detail: 'database schema is behind' };
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ checks: { postgres: 'schema_behind' }, detail: 'database schema is behind' });
  });

  it('when an extra route is given, then it is served; unknown paths 404, other methods 405', async () => {
    expect(await (await fetch(`${base}/metrics`)).text()).toBe('# metrics go here\n');
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    const post = await fetch(`${base}/readyz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('when the port is taken, then the error says which variable to change', async () => {
    await expect(startOpsServer({ host: '127.0.0.1', port: server.port, readiness: async () => report })).rejects.toThrow(
      /OPS_PORT .* is in use/,
    );
  });

  it('when OPS_PORT is 0, then no listener', async () => {
    expect(await startOpsServer({ host: '127.0.0.1', port: 0, readiness: async () => report })).toBeNull();
  });
});

describe('checkReadiness', () => {
  it('when every check is ok, then ready with no detail', async () => {
    expect(await checkReadiness({ a: async () => 'ok', b: async () => 'ok' }, { shuttingDown: false })).toEqual({
      ready: true,
      status: 'ready',
      checks: { a: 'ok', b: 'ok' },
    });
  });

  it('when a check fails, hangs or reports a state, then not ready and each is named', async () => {
    const report = await checkReadiness(
      {
        down: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:5432')),
        slow: () => new Promise(() => undefined),
        behind: async () => ({ state: 'schema_behind', detail: 'run the migrations' }),
      },
      { shuttingDown: false },
      50,
    );
    expect(report).toMatchObject({
      ready: false,
      status: 'unavailable',
      checks: { down: 'unavailable', slow: 'unavailable', behind: 'schema_behind' },
    });
    expect(report.detail).toContain('run the migrations');
    // The public port's /readyz never repeats a connection error (it names internal hosts).
    expect(report.detail).not.toContain('10.0.0.7');
  });

  it('when shutting down, then not ready even with every check ok', async () => {
    expect(await checkReadiness({ a: async () => 'ok' }, { shuttingDown: true })).toMatchObject({ ready: false, status: 'shutting_down' });
  });
});

import express from 'express';
import supertest from 'supertest';
import { Client } from 'pg';
import { createDatabase, NoSuitableHostError } from '@leadgen/db';
import { isInfrastructureFailure } from '../src/http/infrastructure-errors';
import { problemMiddleware } from '../src/http/problem';
import { requestId } from '../src/http/request-id';
import { startWorld } from '../../../test/harness';

const TEST_DB = process.env.DATABASE_URL!;

/** The error Prisma 7 with @prisma/adapter-pg throws when PostgreSQL ends the backend mid-query (57P01). */
async function adminShutdownError(): Promise<unknown> {
  const db = createDatabase(TEST_DB, { poolSize: 1 });
  const admin = new Client({ connectionString: process.env.DATABASE_OWNER_URL! });
  await admin.connect();
  try {
    const tag = `wt_terminate_${Date.now()}`;
    const query = db.$queryRawUnsafe(`SELECT pg_sleep(5) AS ${tag}`).then(
      () => new Error('the query was not terminated'),
      (error: unknown) => error,
    );
    for (let i = 0; i < 50; i += 1) {
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%${tag}%' AND pid <> pg_backend_pid()`,
      );
      if (rowCount) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return await query;
  } finally {
    await admin.end();
    await db.$disconnect();
  }
}

/** An app whose one route throws the given error, answered by the real problem middleware. */
function throwing(error: unknown) {
  const app = express();
  app.use(requestId);
  app.get('/', () => {
    throw error;
  });
  app.use(problemMiddleware);
  return supertest(app);
}

describe('PostgreSQL connection failures', () => {
  it('when PostgreSQL terminates the connection mid-query (57P01), then 503 service_unavailable with Retry-After', async () => {
    const error = await adminShutdownError();
    expect(JSON.stringify((error as { meta?: unknown }).meta)).toContain('57P01');
    expect(isInfrastructureFailure(error)).toBe(true);
    const res = await throwing(error).get('/');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'service_unavailable', requestId: res.get('X-Request-Id') });
    expect(res.get('Retry-After')).toBe('5');
    expect(res.text).not.toContain('57P01');
  });

  it.each([
    ['one host', 'postgresql://postgres@127.0.0.1:1/leadgen'],
    ['several hosts (decision 045)', 'postgresql://postgres@127.0.0.1:1,127.0.0.1:2/leadgen?target_session_attrs=read-write'],
  ])('when PostgreSQL cannot be reached at all, on %s, then every authenticated call answers 503, never 500', async (_what, url) => {
    // Ports 1 and 2 on loopback refuse at once: the key lookup fails as Prisma's P1001 DatabaseNotReachable, or 08001.
    const world = await startWorld({ worker: false, env: { DATABASE_URL: url } });
    try {
      for (const [method, path] of [
        ['get', '/api/v1/account'],
        ['get', '/api/v1/leads/jobs/job_000000000000000000000000'],
        ['post', '/api/v1/leads/generate'],
      ] as const) {
        const res = await world.http[method](path)
          .set('Authorization', 'Bearer lg_live_nothing')
          .set('Idempotency-Key', 'k')
          .send({ category: 'x', state: 'US' });
        expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 503, code: 'service_unavailable' });
        expect(res.get('Retry-After')).toBeDefined();
      }
    } finally {
      await world.close();
    }
  });

  it('when the database does not accept connections (maintenance), then 503 service_unavailable, and once it does the outage is over', async () => {
    const closed = new URL(TEST_DB);
    closed.pathname = `${closed.pathname}_closed`;
    const name = closed.pathname.slice(1);
    const admin = new Client({ connectionString: process.env.DATABASE_OWNER_URL! });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
    const world = await startWorld({ worker: false, env: { DATABASE_URL: closed.toString() } });
    try {
      const res = await world.http.get('/api/v1/meta/tariffs');
      expect(res.status).toBe(200);
      const account = await world.http.get('/api/v1/account').set('Authorization', 'Bearer lg_live_nothing');
      expect({ status: account.status, code: account.body.code }).toEqual({ status: 503, code: 'service_unavailable' });
      await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`);
      // Open again but empty (no tables): the lookup now fails as a bug would, which is not an outage.
      expect((await world.http.get('/api/v1/account').set('Authorization', 'Bearer lg_live_nothing')).status).toBe(500);
    } finally {
      await world.close();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });

  it.each([
    ['57P01 admin shutdown', { code: '57P01', severity: 'FATAL', message: 'terminating connection due to administrator command' }],
    ['57P02 crash shutdown', { code: '57P02', message: 'terminating connection because of crash of another server process' }],
    ['57P03 cannot connect now', { code: '57P03', message: 'the database system is starting up' }],
    ['08006 connection failure', { code: '08006', message: 'connection failure' }],
    [
      '55000 not accepting connections, as adapter-pg reports it',
      {
        name: 'DriverAdapterError',
        cause: { kind: 'postgres', code: '55000', message: 'database "leadgen" is not currently accepting connections' },
      },
    ],
    ['adapter ConnectionClosed', { name: 'DriverAdapterError', message: 'ConnectionClosed', cause: { kind: 'ConnectionClosed' } }],
    [
      'adapter 57P03 wrapped in Prisma',
      {
        name: 'PrismaClientKnownRequestError',
        code: 'P2010',
        meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'postgres', code: '57P03' } } },
      },
    ],
    ['Prisma pool timeout', { name: 'PrismaClientKnownRequestError', code: 'P2024', message: 'Timed out fetching a new connection' }],
    ['pg connection terminated', new Error('Connection terminated unexpectedly')],
    [
      'no host of a multi-host DATABASE_URL takes writes (a failover under way)',
      new NoSuitableHostError('read-write', ['db-a:5432: read-only']),
    ],
    ['pg-pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['ECONNRESET in a cause', new Error('query failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })],
  ])('when the error is %s, then it is an infrastructure failure', (_what, error) => {
    expect(isInfrastructureFailure(error)).toBe(true);
  });

  it.each([
    [
      'a unique violation',
      {
        name: 'PrismaClientKnownRequestError',
        code: 'P2002',
        meta: { driverAdapterError: { cause: { kind: 'UniqueConstraintViolation' } } },
      },
    ],
    ['a syntax error', { code: '42601', message: 'syntax error at or near "x"' }],
    ['another 55000', { code: '55000', message: 'currval of sequence "x" is not yet defined in this session' }],
    ['a database that does not exist (misconfiguration)', { cause: { kind: 'DatabaseDoesNotExist', db: 'x' } }],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['null', null],
  ])('when the error is %s, then it is not (and stays a 500)', (_what, error) => {
    expect(isInfrastructureFailure(error)).toBe(false);
  });

  it('when something that is not an Error is thrown, then 500 internal_error as Problem Details', async () => {
    for (const thrown of ['text', 42, { status: 'x' }]) {
      const res = await throwing(thrown).get('/');
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 500, code: 'internal_error' });
    }
  });
});

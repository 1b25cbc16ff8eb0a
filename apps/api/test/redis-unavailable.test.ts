import { creditSummary, ledgerCreditSummary } from '@leadgen/db';
import { generate, idempotencyKey, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount } from '../../../test/factories';

// A Redis that is not there: port 1 on loopback refuses connections at once.
describe('when Redis is down', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { REDIS_URL: 'redis://127.0.0.1:1' } });
  });
  afterAll(() => world.close());

  it('when a job is requested, then 503 service_unavailable at once, with no job, no reservation and the key still free', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const key = idempotencyKey();
    const started = Date.now();
    const res = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 5 }, { 'Idempotency-Key': key });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('service_unavailable');
    expect(res.get('Retry-After')).toBeDefined();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await world.db.job.count({ where: { accountId: account.accountId } })).toBe(0);
    // The reservation was made and released again: the append-only ledger keeps both rows, and nothing is held.
    expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: 1_000, reserved: 0, available: 1_000 });
    expect(await ledgerCreditSummary(world.db, account.accountId)).toEqual({ balance: 1_000, reserved: 0, available: 1_000 });
    expect(await world.db.idempotencyKey.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it('when readiness is asked, then 503 naming redis', async () => {
    const res = await world.http.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ postgres: 'ok', redis: 'unavailable' });
  });
});

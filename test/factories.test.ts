import { NON_TERMINAL_STATUSES, SOURCES, TERMINAL_STATUSES, chargeFor, reservationFor } from '@leadgen/domain';
import { buildAccount, buildApiKey, buildDeliveredJobs, buildJob, buildLead } from './factories';
import { checkInvariants } from './faults/invariants';
import { startWorld, type TestWorld } from './harness';

// The factories build through the service's own statements: what they make must be what the API
// answers, and must keep every guarantee the fault suites check.
describe('test factories', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when an account is built, then it has the credits asked for and a key the API accepts; a second key works too', async () => {
    const account = await buildAccount(world.db, { credits: 300 });
    const res = await world.http.get('/api/v1/account').set(account.auth);
    expect(res.body).toMatchObject({ accountId: account.accountId, credits: { balance: 300, reserved: 0, available: 300 } });
    const expired = await buildApiKey(world.db, account.accountId, { expiresAt: new Date(Date.now() - 1000) });
    expect((await world.http.get('/api/v1/account').set(expired.auth)).status).toBe(401);
  });

  it.each([...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES])(
    'when a %s job is built, then the API answers it so, and no invariant is broken',
    async (status) => {
      const account = await buildAccount(world.db, { credits: 1_000 });
      const job = await buildJob(world.db, { accountId: account.accountId, status, maxResults: 6 });
      const res = await world.http.get(`/api/v1/leads/jobs/${job.id}`).set(account.auth);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
      const delivered = { COMPLETE: 6, PARTIAL: 3 }[status as string] ?? 0;
      expect(res.body.progress).toEqual({ requestedCount: 6, deliveredCount: delivered });
      if (res.body.terminal) {
        expect(res.body.leads).toHaveLength(delivered);
        expect(res.body.creditsCharged).toBe(chargeFor('google_maps', delivered));
      }
      const credits = (await world.http.get('/api/v1/account').set(account.auth)).body.credits;
      expect(credits.reserved).toBe(res.body.terminal ? 0 : reservationFor('google_maps', 6));
      expect(await checkInvariants(world.config.database.url, { accountIds: [account.accountId] })).toEqual([]);
    },
  );

  it("when a job is built for each source with leads delivered before a cancel, then its leads have the source's shape", async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    for (const source of SOURCES) {
      const job = await buildJob(world.db, { accountId: account.accountId, status: 'CANCELLED', source, deliveredCount: 2 });
      const res = await world.http.get(`/api/v1/leads/jobs/${job.id}`).set(account.auth);
      expect(res.body).toMatchObject({ status: 'CANCELLED', source, progress: { deliveredCount: 2 } });
      expect(res.body.leads).toEqual([buildLead(source, 0), buildLead(source, 1)]);
    }
    expect(await checkInvariants(world.config.database.url, { accountIds: [account.accountId] })).toEqual([]);
  });

  it('when the counts asked for contradict the status, then the factory says so instead of building another', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    await expect(buildJob(world.db, { accountId: account.accountId, status: 'PARTIAL', maxResults: 1 })).rejects.toThrow(
      /asked for PARTIAL, the counts made it COMPLETE/,
    );
    await expect(buildJob(world.db, { accountId: (await buildAccount(world.db, { credits: 0 })).accountId })).rejects.toThrow(
      /insufficient_credits/,
    );
  });

  it('when delivered jobs are built in bulk, then the account lists them with their leads', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const ids = await buildDeliveredJobs(world.db, account.accountId, 3, 4);
    const res = await world.http.get('/api/v1/leads?limit=100').set(account.auth);
    expect(res.body.items).toHaveLength(12);
    expect([...new Set((res.body.items as Array<{ jobId: string }>).map((i) => i.jobId))]).toEqual(ids);
  });
});

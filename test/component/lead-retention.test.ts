import { accountLedger, expireLeads, listLeads } from '@leadgen/db';
import { jobEventPublisher, openLeadQueues, producerConnection, closeRedis, redisKeys } from '@leadgen/queue';
import { startLeadRetentionSweep } from '../../apps/worker/src/lead-retention-sweep';
import { buildAccount, buildDeliveredJobs } from '../factories';
import { generate, startWorld, type TestWorld } from '../harness';

// The test database is shared with files running beside this one: their jobs finished minutes ago, these
// are made to have finished `AGED` days ago, and the retention asked for lies between (RETENTION days).
const RETENTION = 3_000;
const AGED = 3_100;

describe('lead retention (LEAD_RETENTION_DAYS)', () => {
  let world: TestWorld;
  let publisher: ReturnType<typeof producerConnection>;
  beforeAll(async () => {
    world = await startWorld({ env: { WORKER_CONCURRENCY: '2' } });
    publisher = producerConnection(world.config.redis, 'retention-test-events');
  });
  afterAll(async () => {
    await closeRedis(publisher);
    await world.close();
  });

  // As the sweep does: the emptied jobs are named to the API processes, which drop the bodies they kept.
  const expire = () => {
    const events = jobEventPublisher(publisher, redisKeys(world.config.redis));
    return expireLeads(world.db, RETENTION, {
      onExpired: async (ids) => void (await Promise.all(ids.map((id) => events.publishLeadsErased(id)))),
    });
  };
  const readJob = async (jobId: string, auth: Record<string, string>) => {
    let res = await world.http.get(`/api/v1/leads/jobs/${jobId}`).set(auth);
    for (let i = 0; i < 100 && !res.body.leadsExpiredAt; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      res = await world.http.get(`/api/v1/leads/jobs/${jobId}`).set(auth);
    }
    return res;
  };

  const age = (jobIds: string[]) =>
    world.db.sql.query(`UPDATE jobs SET finished_at = now() - make_interval(days => $2) WHERE id = ANY($1)`, [jobIds, AGED]);

  it('when a job finished longer ago than the retention, then its leads are deleted, its leads endpoints answer 410 leads_expired, and the job, its charge and the ledger stay', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const [old, recent] = await buildDeliveredJobs(world.db, account.accountId, 2, 5);
    await age([old!]);
    const ledgerBefore = await accountLedger(world.db, account.accountId);
    const jobBefore = await world.http.get(`/api/v1/leads/jobs/${old}`).set(account.auth);
    expect(jobBefore.body.leads).toHaveLength(5);

    const report = await expire();
    expect(report.jobs).toBeGreaterThanOrEqual(1);
    expect(report.leads).toBeGreaterThanOrEqual(5);
    expect(await listLeads(world.db, old!)).toEqual([]);
    expect(await listLeads(world.db, recent!)).toHaveLength(5);

    for (const path of [
      `/api/v1/leads/jobs/${old}/leads`,
      `/api/v1/leads/jobs/${old}/leads.csv`,
      `/api/v1/leads/jobs/${old}/leads.jsonl`,
      `/api/v1/leads/jobs/${old}/leads?format=csv`,
      `/api/v1/leads/result-sets/${jobBefore.body.resultSetId}`,
      `/api/v1/leads/result-sets/${jobBefore.body.resultSetId}.csv`,
    ]) {
      const res = await world.http.get(path).set(account.auth);
      expect([path, res.status]).toEqual([path, 410]);
      expect(res.get('Content-Type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 410, code: 'leads_expired', leadsExpiredAt: expect.any(String) });
    }
    // The job is still there, counts and charge unchanged, its leads an empty list with the time they went
    // (the API had kept the finished body: a retention run that names the job makes it read it again).
    const job = await readJob(old!, account.auth);
    expect(job.status).toBe(200);
    const { leads: beforeLeads, finishedAt: _aged, ...beforeRest } = jobBefore.body;
    expect(beforeLeads).toHaveLength(5);
    expect(job.body).toEqual({ ...beforeRest, finishedAt: expect.any(String), leadsExpiredAt: expect.any(String), leads: [] });
    expect(await accountLedger(world.db, account.accountId)).toEqual(ledgerBefore);
    // The account's listing and its exports skip the expired job; the recent one is whole.
    const all = await world.http.get('/api/v1/leads').set(account.auth);
    expect(all.body.items.map((i: { jobId: string }) => i.jobId)).toEqual(Array(5).fill(recent));
    expect((await world.http.get(`/api/v1/leads/jobs/${recent}/leads`).set(account.auth)).status).toBe(200);
    // Another account still gets 404 for the job, not 410: nothing is told about jobs that are not yours.
    const stranger = await buildAccount(world.db, { credits: 0 });
    expect((await world.http.get(`/api/v1/leads/jobs/${old}/leads`).set(stranger.auth)).status).toBe(404);
    // Running it again finds nothing more of this account's.
    await expire();
    expect((await world.http.get(`/api/v1/leads/jobs/${recent}/leads`).set(account.auth)).body.items).toHaveLength(5);
  });

  it('when leads were purged, then excludeDelivered still skips them: a lead is never billed twice', async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    const area = { category: 'dentist', state: 'US', city: 'Austin', keyword: 'sandbox:only=20' };
    const first = await generate(world, account, { ...area, maxResults: 10 }, { Prefer: 'wait=60' });
    expect(first.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 10 });
    await age([first.body.jobId]);
    await expire();
    expect((await world.http.get(`/api/v1/leads/jobs/${first.body.jobId}/leads`).set(account.auth)).status).toBe(410);

    const second = await generate(world, account, { ...area, maxResults: 15, excludeDelivered: true }, { Prefer: 'wait=60' });
    expect(second.body.terminal).toMatchObject({ status: 'PARTIAL', deliveredCount: 10, stopReason: 'source_exhausted' });
    expect(second.body.skipped).toEqual({ alreadyDelivered: 10, suppressed: 0, filtered: 0 });
    type Place = { businessName: string; address: string };
    const keyOf = (l: Place) => `${l.businessName}|${l.address}`;
    const seen = new Set((first.body.leads as Place[]).map(keyOf));
    expect((second.body.leads as Place[]).filter((l) => seen.has(keyOf(l)))).toEqual([]);
  }, 60_000);

  it("when a LinkedIn job's leads are purged, then what the account remembers of them is a digest, not the person's profile URL, and still stops a second bill", async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    const people = { source: 'linkedin', category: 'logistics', state: 'US', keyword: 'sandbox:only=8' };
    const first = await generate(world, account, { ...people, maxResults: 5 }, { Prefer: 'wait=60' });
    expect(first.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 5 });
    await age([first.body.jobId]);
    await expire();
    const { rows } = await world.db.sql.query<{ dedup_key: string }>('SELECT dedup_key FROM account_deliveries WHERE account_id = $1', [
      account.accountId,
    ]);
    expect(rows).toHaveLength(5);
    for (const { dedup_key: key } of rows) expect(key).toMatch(/^[0-9a-f]{64}$/);
    const slugs = (first.body.leads as Array<{ person: { linkedinUrl: string } }>).map((l) => new URL(l.person.linkedinUrl).pathname);
    expect(JSON.stringify(rows)).not.toMatch(new RegExp(slugs.map((p) => p.split('/').pop()).join('|')));

    const second = await generate(world, account, { ...people, maxResults: 5, excludeDelivered: true }, { Prefer: 'wait=60' });
    expect(second.body.terminal).toMatchObject({ status: 'PARTIAL', deliveredCount: 3 });
    expect(second.body.skipped).toEqual({ alreadyDelivered: 5, suppressed: 0, filtered: 0 });
  }, 60_000);

  it("when the worker's retention sweep runs, then it empties the expired jobs once per period fleet-wide and API processes drop the bodies they kept", async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const [jobId] = await buildDeliveredJobs(world.db, account.accountId, 1, 3);
    // The API keeps the finished body in memory from this read on.
    expect((await world.http.get(`/api/v1/leads/jobs/${jobId}`).set(account.auth)).body.leads).toHaveLength(3);
    await age([jobId!]);

    const queues = openLeadQueues(world.config.redis, 'retention-test');
    await queues.waitUntilReady(5_000);
    const told = jobEventPublisher(publisher, redisKeys(world.config.redis));
    // Counts the runs that did the work: each names the emptied job once.
    const report = jest.fn((jobId: string) => told.publishLeadsErased(jobId));
    const events = { ...told, publishLeadsErased: report };
    const sweeps = [
      startLeadRetentionSweep(world.db, queues, events, { days: RETENTION, periodMs: 60_000 }),
      startLeadRetentionSweep(world.db, queues, events, { days: RETENTION, periodMs: 60_000 }),
    ];
    try {
      const { body } = await readJob(jobId!, account.auth);
      expect(body).toMatchObject({ leads: [], leadsExpiredAt: expect.any(String), progress: { deliveredCount: 3 } });
      // The period's claim is taken once: the second sweep of the fleet did not run it again.
      expect(await queues.connection.exists(queues.keys.key('task', 'lead-retention'))).toBe(1);
      expect(report).toHaveBeenCalledTimes(1);
    } finally {
      await Promise.all(sweeps.map((s) => s.stop()));
      await queues.close();
    }
  });

  it('when LEAD_RETENTION_DAYS is unset, then the sweep deletes nothing', async () => {
    expect(world.config.leads.retentionDays).toBeNull();
    const account = await buildAccount(world.db, { credits: 0 });
    const [jobId] = await buildDeliveredJobs(world.db, account.accountId, 1, 2);
    await age([jobId!]);
    const queues = openLeadQueues(world.config.redis, 'retention-off');
    const sweep = startLeadRetentionSweep(world.db, queues, { publishLeadsErased: async () => undefined } as never, { days: null });
    await sweep.stop();
    await queues.close();
    expect((await world.http.get(`/api/v1/leads/jobs/${jobId}/leads`).set(account.auth)).body.items).toHaveLength(2);
    // The partitions ahead are made all the same (by this sweep or the world's worker: one per period), of every table
    // partitioned by week: leads and audit_events (decision 053).
    for (const table of ['leads', 'audit_events']) {
      const { rows } = await world.db.sql.query<{ upper: Date }>('SELECT max(o_upper) AS upper FROM partition_bounds($1)', [table]);
      expect(rows[0]!.upper.getTime()).toBeGreaterThan(Date.now() + 4 * 7 * 86_400_000);
    }
  });
});

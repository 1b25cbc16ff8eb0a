import { migrate } from '@leadgen/db';
import { generate, idempotencyKey, startWorld, until, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startStreamingReplica, type StreamingReplica } from './streaming-replica';
import { replicaGauges } from '../replica-gauges';

// DATABASE_READ_URL against a real streaming replica (decision 047): a throwaway primary and its standby
// (pg_basebackup -R). Listings and exports are served by the standby (its log shows their statements); with replay
// paused, a listing lags while the job's GET and its leads do not; past DATABASE_READ_MAX_LAG_MS the primary serves
// the listings; the write paths (and the reads that must see them) send the standby nothing but the lag probe; and a
// standby lost leaves the listings to the primary.
// In the fault suite, not `npm test`: starting the two servers and migrating takes ~20 s.
const SANDBOX = { category: 'dentist', state: 'US', maxResults: 5 };
const LAG_PROBE = /pg_last_wal_replay_lsn\(\) >= \$1::pg_lsn/;

describe('read replicas: DATABASE_READ_URL on a streaming standby', () => {
  let cluster: StreamingReplica;
  /** never falls back for lag (an hour): what the replica serves is seen */
  let lenient: TestWorld;
  /** falls back past 1 s of lag */
  let strict: TestWorld;
  let account: TestAccount;

  /** the standby's statements logged after `from` (an index into replicaStatements()) */
  const statementsSince = (from: number) => cluster.replicaStatements().slice(from);
  const jobIds = async (world: TestWorld) => {
    const res = await world.http.get('/api/v1/leads/jobs?limit=100').set(account.auth);
    expect(res.status).toBe(200);
    return (res.body.items as Array<{ jobId: string }>).map((j) => j.jobId);
  };
  const syncJob = async (world: TestWorld) => {
    const res = await generate(world, account, SANDBOX);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('COMPLETE');
    return res.body.jobId as string;
  };

  beforeAll(async () => {
    cluster = await startStreamingReplica();
    await migrate(cluster.primaryUrl);
    const env = { DATABASE_URL: cluster.primaryUrl, DATABASE_READ_URL: cluster.replicaUrl };
    lenient = await startWorld({ env: { ...env, DATABASE_READ_MAX_LAG_MS: '3600000' } });
    strict = await startWorld({ worker: false, env: { ...env, DATABASE_READ_MAX_LAG_MS: '1000' } });
    account = await buildAccount(lenient.db, { credits: 1_000_000 });
    await cluster.caughtUp();
  }, 120_000);

  afterAll(async () => {
    await cluster?.resumeReplay().catch(() => undefined);
    await strict?.close();
    await lenient?.close();
    cluster?.stop();
  });

  it('when a replica is configured, then the job list, the leads listing and the CSV exports are read on it', async () => {
    const jobId = await syncJob(lenient);
    await cluster.caughtUp();
    const from = cluster.replicaStatements().length;
    const before = { ...lenient.api.deps.db.replica!.served };

    expect(await jobIds(lenient)).toContain(jobId);
    const leads = await lenient.http.get('/api/v1/leads?limit=50').set(account.auth);
    expect(leads.status).toBe(200);
    const accountCsv = await lenient.http.get('/api/v1/leads.csv').set(account.auth);
    expect(accountCsv.status).toBe(200);
    expect(accountCsv.text.trim().split('\n').length).toBeGreaterThan(1);
    const jobCsv = await lenient.http.get(`/api/v1/leads/jobs/${jobId}/leads.csv`).set(account.auth);
    expect(jobCsv.status).toBe(200);
    expect(jobCsv.text.trim().split('\n')).toHaveLength(1 + 5);

    const seen = statementsSince(from).filter((s) => !LAG_PROBE.test(s));
    expect(seen.some((s) => /FROM jobs/.test(s) && /ORDER BY/.test(s))).toBe(true); // the job list
    expect(seen.filter((s) => /COPY \(SELECT lead_csv_row/.test(s)).length).toBeGreaterThanOrEqual(2); // both exports
    const served = lenient.api.deps.db.replica!.served;
    expect(served.replica - before.replica).toBeGreaterThanOrEqual(6);
    expect(served.primary - before.primary).toBe(0);
  });

  it('when the standby stops replaying, then the job list lags while the job, its poll and its leads are read from the primary', async () => {
    await cluster.pauseReplay();
    const pausedAt = Date.now();
    try {
      const jobId = await syncJob(lenient);
      // The job's GET reads the primary: it has ended.
      const job = await lenient.http.get(`/api/v1/leads/jobs/${jobId}`).set(account.auth);
      expect(job.status).toBe(200);
      expect(job.body.status).toBe('COMPLETE');
      // The list reads the paused standby (lag bound an hour): the job is not in it yet.
      expect(await jobIds(lenient)).not.toContain(jobId);
      // Its leads: the standby does not have the job, so they are read from the primary, whole.
      const page = await lenient.http.get(`/api/v1/leads/jobs/${jobId}/leads`).set(account.auth);
      expect(page.status).toBe(200);
      expect(page.body.items).toHaveLength(5);
      const csv = await lenient.http.get(`/api/v1/leads/jobs/${jobId}/leads.csv`).set(account.auth);
      expect(csv.text.trim().split('\n')).toHaveLength(1 + 5);
      // A batch ended on the primary: its leads too (the standby has not got it).
      const batch = await lenient.http
        .post('/api/v1/leads/batches')
        .set(account.auth)
        .set('Idempotency-Key', idempotencyKey())
        .send({ requests: [SANDBOX, { ...SANDBOX, category: 'optician' }] });
      expect(batch.status).toBe(202);
      const batchId = batch.body.batchId as string;
      await until(
        'the batch to end',
        async () => (await lenient.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth)).body.terminal as unknown,
        Boolean,
      );
      const batchLeads = await lenient.http.get(`/api/v1/leads/batches/${batchId}/leads?limit=100`).set(account.auth);
      expect(batchLeads.status).toBe(200);
      expect(batchLeads.body.complete).toBe(true);
      expect(batchLeads.body.items).toHaveLength(10);
      // Past 1 s of lag the strict API reads its listings from the primary: the job is there.
      await until(
        'the strict API to read the primary',
        () => jobIds(strict),
        (ids) => ids.includes(jobId),
        15_000,
      );
      const onPrimaryAfter = Date.now() - pausedAt;
      const verdict = strict.api.deps.db.replica!.lastVerdict;
      expect(verdict.useReplica).toBe(false);
      expect(verdict.lagMs).toBeGreaterThan(1000);
      // The gauges say so (the strict API started last: its router is the one this process reports).
      const paused = await replicaGauges();
      expect(paused.leadgen_read_replica_in_use).toBe(0);
      expect(paused.leadgen_read_replica_lag_seconds).toBeGreaterThan(1);
      expect(paused.leadgen_read_replica_max_lag_seconds).toBe(1);
      // …while the lenient one still reads the paused standby.
      expect(await jobIds(lenient)).not.toContain(jobId);
      process.stderr.write(
        `read replica: replay paused, the 1 s-bound API read the primary ${onPrimaryAfter} ms after the pause (measured lag ${Math.round(verdict.lagMs!)} ms)\n`,
      );
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    // Replayed: both read the standby again, and see the job there.
    await until(
      'the strict API back on the replica',
      async () => {
        await jobIds(strict);
        return strict.api.deps.db.replica!.lastVerdict.useReplica;
      },
      (back) => back,
      15_000,
    );
    const jobs = await jobIds(lenient);
    expect(jobs.length).toBeGreaterThanOrEqual(2);
    const caughtUp = await replicaGauges();
    expect(caughtUp.leadgen_read_replica_in_use).toBe(1);
    expect(caughtUp.leadgen_read_replica_lag_seconds).toBeLessThanOrEqual(1);
  });

  it('when jobs are created, polled, retried and keys, suppressions and credits change, then the standby runs none of their statements', async () => {
    await cluster.caughtUp();
    const from = cluster.replicaStatements().length;
    const key = idempotencyKey();
    const first = await generate(lenient, account, SANDBOX, { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    const again = await generate(lenient, account, SANDBOX, { 'Idempotency-Key': key });
    expect(again.body.jobId).toBe(first.body.jobId);
    const async = await generate(lenient, account, SANDBOX, { Prefer: 'respond-async' });
    expect(async.status).toBe(202);
    await until(
      'the async job to end',
      async () => (await lenient.http.get(`/api/v1/leads/jobs/${async.body.jobId as string}`).set(account.auth)).body.status as string,
      (status) => status === 'COMPLETE',
    );
    expect((await lenient.http.get('/api/v1/account').set(account.auth)).status).toBe(200);
    expect(
      (
        await lenient.http
          .post('/api/v1/keys')
          .set(account.auth)
          .send({ name: 'replica check', scopes: ['read'] })
      ).status,
    ).toBe(201);
    const put = await lenient.http
      .put('/api/v1/suppressions')
      .set(account.auth)
      .send({ emails: ['someone@replica.example'] });
    expect(put.status).toBe(200);
    expect(put.body.counts.email).toBeGreaterThanOrEqual(1); // counted on the primary, right after the write

    const onStandby = statementsSince(from);
    const notProbes = onStandby.filter((s) => !LAG_PROBE.test(s));
    expect(notProbes).toEqual([]);
    // The control: the standby's log is read, and a listing does reach it.
    expect(await jobIds(lenient)).toContain(first.body.jobId);
    expect(statementsSince(from).filter((s) => !LAG_PROBE.test(s)).length).toBeGreaterThan(0);
  });

  it('when the standby is lost, then listings and exports are served by the primary, with no error', async () => {
    const jobId = await syncJob(lenient);
    await cluster.caughtUp();
    expect(await jobIds(lenient)).toContain(jobId); // read on the standby
    expect(lenient.api.deps.db.replica!.lastVerdict.useReplica).toBe(true);
    cluster.stopStandby();
    // Its pooled connections die with it: the read that meets one is run again on the primary.
    const stoppedAt = Date.now();
    expect(await jobIds(lenient)).toContain(jobId);
    process.stderr.write(
      `read replica: standby lost, the first listing after it answered 200 in ${Date.now() - stoppedAt} ms (served ${JSON.stringify(lenient.api.deps.db.replica!.served)})\n`,
    );
    const csv = await lenient.http.get(`/api/v1/leads/jobs/${jobId}/leads.csv`).set(account.auth);
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split('\n')).toHaveLength(1 + 5);
    expect((await lenient.http.get('/api/v1/leads.csv').set(account.auth)).status).toBe(200);
    expect(lenient.api.deps.db.replica!.lastVerdict.useReplica).toBe(false);
  });
});

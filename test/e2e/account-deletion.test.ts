import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { deleteAccount, findCreditDiscrepancies, listAuditEvents } from '@leadgen/db';
import { buildAccount, buildDeliveredJobs } from '../factories';
import { generate, startWorld, type TestWorld } from '../harness';
import { ROOT } from '@leadgen/testing';

// Every table that holds an account's data, and how its rows are found.
const OWNED = {
  api_keys: 'account_id = $1',
  jobs: 'account_id = $1',
  leads: 'job_id = ANY($1::text[])',
  credit_ledger: 'account_id = $1',
  idempotency_keys: 'account_id = $1',
  account_deliveries: 'account_id = $1',
  suppressions: 'account_id = $1',
  webhook_endpoints: 'account_id = $1',
  account_webhook_secrets: 'account_id = $1',
  webhook_deliveries: 'account_id = $1',
};

describe('deleting an account (admin account:delete)', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' } });
  });
  afterAll(() => world.close());

  const admin = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), ...args, '--json'], {
      cwd: ROOT,
      env: { ...process.env, QUEUE_PREFIX: world.config.redis.queuePrefix },
      encoding: 'utf8',
    });

  const rowsOwned = async (accountId: string, jobIds: string[]) => {
    const counts: Record<string, number> = {};
    for (const [table, where] of Object.entries(OWNED)) {
      const { rows } = await world.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, [
        table === 'leads' ? jobIds : accountId,
      ]);
      counts[table] = rows[0]!.n;
    }
    return counts;
  };

  it('when an operator deletes an account, then its keys stop, its running job is cancelled, every row it owned goes (ledger included), others are untouched, and the audit trail keeps that it happened', async () => {
    const owner = await buildAccount(world.db, { credits: 10_000 });
    const bystander = await buildAccount(world.db, { credits: 500 });
    const [bystanderJob] = await buildDeliveredJobs(world.db, bystander.accountId, 1, 3);

    const hook = await world.http
      .post('/api/v1/webhooks')
      .set(owner.auth)
      .send({ url: 'http://127.0.0.1:9/h', events: ['job.completed'] });
    expect(hook.status).toBe(201);
    const done = await generate(world, owner, { category: 'dentist', state: 'US', city: 'Austin', maxResults: 10, excludeDelivered: true });
    expect(done.body.terminal).toMatchObject({ status: 'COMPLETE' });
    expect(
      (
        await world.http
          .put('/api/v1/suppressions')
          .set(owner.auth)
          .send({ emails: ['no@one.example'] })
      ).status,
    ).toBe(200);
    // A job still running when the operator acts: pages of 10, 400 ms apart.
    const running = await generate(
      world,
      owner,
      { category: 'dentist', state: 'US', city: 'Dallas', maxResults: 100, keyword: 'sandbox:delay=400' },
      { Prefer: 'respond-async' },
    );
    expect(running.status).toBe(202);
    for (;;) {
      const job = await world.db.job.findUniqueOrThrow({ where: { id: running.body.jobId } });
      if (job.deliveredCount >= 10) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const jobIds = [done.body.jobId as string, running.body.jobId as string];
    const before = await rowsOwned(owner.accountId, jobIds);
    for (const table of Object.keys(OWNED)) if (table !== 'account_webhook_secrets') expect([table, before[table]]).not.toEqual([table, 0]);
    const bystanderBefore = await rowsOwned(bystander.accountId, [bystanderJob!]);

    const run = admin('account:delete', '--account', owner.accountId, '--yes');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({ deleted: true, accountId: owner.accountId, jobsCancelled: 1, jobs: 2, apiKeys: 1 });
    // grant, then per job a reserve, a release and a charge
    expect(printed.ledgerRows).toBe(7);
    expect(printed.credits).toEqual({
      granted: 10_000,
      charged: expect.any(Number),
      balance: 10_000 - printed.credits.charged,
    });
    expect(printed.credits.charged).toBeGreaterThanOrEqual(done.body.creditsCharged + 20);
    expect(printed.leads).toBeGreaterThanOrEqual(20);

    expect(await rowsOwned(owner.accountId, jobIds)).toEqual(Object.fromEntries(Object.keys(OWNED).map((t) => [t, 0])));
    expect(await world.db.account.findUnique({ where: { id: owner.accountId } })).toBeNull();
    expect((await world.http.get('/api/v1/account').set(owner.auth)).status).toBe(401);
    // The bystander's rows and its ledger are as they were, and every ledger that is left still adds up.
    expect(await rowsOwned(bystander.accountId, [bystanderJob!])).toEqual(bystanderBefore);
    expect((await findCreditDiscrepancies(world.db)).filter((d) => d.accountId === bystander.accountId)).toEqual([]);

    // The trail outlives the account: what it did before, and its deletion, with counts and no name.
    const trail = await listAuditEvents(world.db, owner.accountId, { action: null }, null, 50);
    expect(trail.map((e) => e.action)).toEqual(
      expect.arrayContaining(['account.deleted', 'suppressions.changed', 'webhook_endpoint.created']),
    );
    expect(trail.find((e) => e.action === 'account.deleted')).toMatchObject({
      actor: 'operator',
      summary: { jobs: 2, apiKeys: 1, ledgerRows: 7, jobsCancelled: 1 },
    });

    const again = admin('account:delete', '--account', owner.accountId, '--yes');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`no account ${owner.accountId}`);
  }, 60_000);

  it('when an account with a test key is deleted, then its test account goes first, test jobs and test ledger included, and the test key stops', async () => {
    const owner = await buildAccount(world.db, { credits: 100 });
    const testKey = (await world.http.post('/api/v1/keys').set(owner.auth).send({ mode: 'test' })).body.apiKey as string;
    const testAuth = { Authorization: `Bearer ${testKey}` };
    const job = await generate(
      world,
      { accountId: owner.accountId, apiKey: testKey, auth: testAuth },
      { category: 'dentist', state: 'US', maxResults: 10 },
    );
    expect(job.body.terminal).toMatchObject({ status: 'COMPLETE' });
    const testAccountId = (await world.http.get('/api/v1/account').set(testAuth)).body.accountId as string;
    expect(testAccountId).toMatch(/^acc_test_/);

    const run = admin('account:delete', '--account', owner.accountId, '--yes');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(await world.db.account.findMany({ where: { id: { in: [owner.accountId, testAccountId] } } })).toEqual([]);
    expect(await rowsOwned(testAccountId, [job.body.jobId as string])).toEqual(Object.fromEntries(Object.keys(OWNED).map((t) => [t, 0])));
    expect((await world.http.get('/api/v1/account').set(testAuth)).status).toBe(401);
  }, 60_000);

  it('when the account still has an open job, then delete_account changes nothing; and the ledger stays append-only for everyone else', async () => {
    const account = await buildAccount(world.db, { credits: 100 });
    // A queued job no worker has seen (written directly, never enqueued).
    await world.db.sql.query(
      `INSERT INTO jobs (id, account_id, result_set_id, source, status, request, requested_count, credits_reserved)
       VALUES ($2, $1, $3, 'google_maps', 'queued', '{}'::jsonb, 1, 0)`,
      [account.accountId, `job_${account.accountId.slice(-20)}0000`, `rs_${account.accountId.slice(-20)}0000`],
    );
    expect(await deleteAccount(world.db, account.accountId)).toEqual({ outcome: 'open_jobs' });
    expect(await world.db.account.findUnique({ where: { id: account.accountId } })).not.toBeNull();
    expect(await deleteAccount(world.db, 'acct_nobody')).toEqual({ outcome: 'not_found' });

    // Outside delete_account no ledger row can go, not even with the setting naming another account: the processes'
    // role has no UPDATE or DELETE on the ledger (decision 035), and for the owner the trigger refuses.
    await expect(world.db.sql.query('DELETE FROM credit_ledger WHERE account_id = $1', [account.accountId])).rejects.toThrow(
      /permission denied for table credit_ledger/,
    );
    await expect(world.db.sql.query('UPDATE credit_ledger SET amount = amount WHERE account_id = $1', [account.accountId])).rejects.toThrow(
      /permission denied for table credit_ledger/,
    );
    const client = new Client({ connectionString: process.env.DATABASE_OWNER_URL });
    await client.connect();
    await expect(client.query('DELETE FROM credit_ledger WHERE account_id = $1', [account.accountId])).rejects.toThrow(/append-only/);
    try {
      await client.query('BEGIN');
      await client.query("SELECT set_config('leadgen.account_deletion', 'acct_someone_else', true)");
      await expect(client.query('DELETE FROM credit_ledger WHERE account_id = $1', [account.accountId])).rejects.toThrow(/append-only/);
      await client.query('ROLLBACK');
      await expect(client.query('UPDATE credit_ledger SET amount = amount WHERE account_id = $1', [account.accountId])).rejects.toThrow(
        /append-only/,
      );
    } finally {
      await client.end();
    }
  });
});

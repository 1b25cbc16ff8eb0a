import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { topUpTestCredits } from '@leadgen/db';
import { TEST_ACCOUNT_CREDITS } from '@leadgen/domain';
import { openLeadQueues } from '@leadgen/queue';
import { startTestCreditsSweep } from '../../apps/worker/src/test-credits-sweep';
import { ownDatabase } from '../faults/fault-world';
import { buildAccount, type TestAccount } from '../factories';
import { idempotencyKey, startWorld, until, type TestWorld } from '../harness';

// Test accounts (decision 036): the operator's account:list marks them and names their live account, and their
// test credits come back to the allowance, once a day by the workers' sweep and at once by `credits:top-up-test`.
// A database of its own: the sweep tops up every test account that is due, other files' included.
const ROOT = path.resolve(__dirname, '../..');

describe('test accounts: marked for the operator, and their test credits restored', () => {
  let database: Awaited<ReturnType<typeof ownDatabase>> | undefined;
  let world: TestWorld;
  let account: TestAccount;
  let testAuth: Record<string, string>;
  let testAccountId: string;

  const admin = (...args: string[]) => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: database!.url, QUEUE_PREFIX: world.config.redis.queuePrefix },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`admin ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    return result.stdout;
  };
  const testBalance = async () => (await world.http.get('/api/v1/account').set(testAuth)).body.credits.balance as number;
  const spend = async () => {
    const job = await world.http
      .post('/api/v1/leads/generate')
      .set(testAuth)
      .set('Idempotency-Key', idempotencyKey())
      .send({ category: 'dentist', state: 'US', city: 'Austin', maxResults: 10 });
    expect(job.body).toMatchObject({ status: 'COMPLETE', creditsCharged: expect.any(Number) });
    expect(job.body.creditsCharged).toBeGreaterThan(0);
    return job.body.creditsCharged as number;
  };

  beforeAll(async () => {
    database = await ownDatabase();
    world = await startWorld({ env: { DATABASE_URL: database.url, WORKER_QUEUES: 'google_maps' } });
    account = await buildAccount(world.db, { credits: 100, name: 'Tester' });
    const created = await world.http.post('/api/v1/keys').set(account.auth).send({ mode: 'test' });
    expect(created.status).toBe(201);
    testAuth = { Authorization: `Bearer ${created.body.apiKey as string}` };
    testAccountId = (await world.http.get('/api/v1/account').set(testAuth)).body.accountId as string;
    expect(testAccountId).toMatch(/^acc_test_/);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    await database?.drop();
  });

  it('when the operator lists the accounts, then a test account says so, names its live account and follows it', async () => {
    const other = await buildAccount(world.db, { credits: 5, name: 'Other' });
    const { rows } = JSON.parse(admin('account:list')) as { rows: Array<Record<string, unknown>> };
    const at = rows.findIndex((r) => r.accountId === account.accountId);
    expect(rows[at]).toMatchObject({ accountId: account.accountId, name: 'Tester', mode: 'live', liveAccountId: null, balance: 100 });
    expect(rows[at + 1]).toMatchObject({
      accountId: testAccountId,
      mode: 'test',
      liveAccountId: account.accountId,
      balance: TEST_ACCOUNT_CREDITS,
    });
    expect(rows.find((r) => r.accountId === other.accountId)).toMatchObject({ mode: 'live', liveAccountId: null });
    // On a terminal: a mode column, and the live account's id on the test account's line.
    const table = admin('account:list', '--table').split('\n');
    expect(table[0]).toMatch(/^accountId\s+name\s+mode\s+liveAccountId\s+/);
    expect(table.find((line) => line.startsWith(testAccountId))).toMatch(new RegExp(`\\s+test\\s+${account.accountId}\\s+`));
  });

  it('when a test account has spent, then it is not due before a day has passed since its last grant, and the sweep then restores it', async () => {
    const spent = await spend();
    expect(await testBalance()).toBe(TEST_ACCOUNT_CREDITS - spent);
    // Its first grant is minutes old: the daily sweep leaves it.
    expect(await topUpTestCredits(world.db, { allowance: TEST_ACCOUNT_CREDITS, grantedBefore: new Date(Date.now() - 86_400_000) })).toEqual(
      [],
    );

    // A sweep for which every grant is old enough: the test account gets back what it spent, the live one nothing.
    // Under a prefix of its own: the world's worker claimed this period's sweep for its prefix when it started.
    const queues = openLeadQueues({ ...world.config.redis, queuePrefix: `${world.config.redis.queuePrefix}-sweep` }, 'test-credits-sweep');
    const sweep = startTestCreditsSweep(world.db, queues, { periodMs: 60_000, everyMs: -60_000 });
    try {
      await until('the test credits restored', testBalance, (balance) => balance === TEST_ACCOUNT_CREDITS, 20_000);
    } finally {
      await sweep.stop();
      await queues.close();
    }
    expect((await world.http.get('/api/v1/account').set(account.auth)).body.credits.balance).toBe(100);
    const ledger = await world.http.get('/api/v1/account/ledger').set(testAuth);
    expect(ledger.body.items.filter((row: { kind: string }) => row.kind === 'grant').map((row: { amount: number }) => row.amount)).toEqual([
      TEST_ACCOUNT_CREDITS,
      spent,
    ]);
  });

  it('when the operator tops up at once, then the spent test credits come back with a grant row, once, and the ledger agrees', async () => {
    const spent = await spend();
    expect(JSON.parse(admin('credits:top-up-test', '--account', account.accountId))).toEqual({
      allowance: TEST_ACCOUNT_CREDITS,
      toppedUp: 1,
      rows: [{ accountId: testAccountId, amount: spent }],
    });
    expect(await testBalance()).toBe(TEST_ACCOUNT_CREDITS);
    expect(JSON.parse(admin('credits:top-up-test'))).toEqual({ allowance: TEST_ACCOUNT_CREDITS, toppedUp: 0, rows: [] });
    expect(JSON.parse(admin('credits:verify', '--account', testAccountId))).toEqual({ ok: true, discrepancies: [] });
  });
});

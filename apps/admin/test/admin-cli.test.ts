import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { authenticateApiKey, createDatabase, hashApiKey, type Database } from '@leadgen/db';
import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { newWebhookSecret } from '@leadgen/domain';
import { buildAccount, buildJob } from '../../../test/factories';

/** The account a live key authenticates as; null for an unknown, revoked or expired key. */
const accountForApiKey = async (db: Database, apiKey: string) => (await authenticateApiKey(db, hashApiKey(apiKey)))?.account ?? null;

// The operator CLI as an operator runs it: a real process, JSON on stdout, messages on stderr.
const ROOT = path.resolve(__dirname, '../../..');

function admin(...args: string[]) {
  return adminWith({}, ...args);
}

function adminWith(env: Record<string, string>, ...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  const json = () => {
    // A command that printed no JSON says why on stderr: put that in the failure, not a parse error.
    if (!result.stdout.trim()) throw new Error(`admin ${args.join(' ')} printed nothing (exit ${result.status}): ${result.stderr}`);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, json };
}

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 1 });
});
afterAll(() => db.$disconnect());

describe('npm run admin', () => {
  it('when an operator creates an account with credits, grants more, issues and revokes keys, then each step prints one JSON object', async () => {
    const created = admin('account:create', '--name', 'Acme', '--credits', '500');
    expect(created.code).toBe(0);
    const { accountId, apiKey } = created.json() as { accountId: string; apiKey: string };
    expect(accountId).toMatch(/^acc_/);
    expect(apiKey).toMatch(/^lg_live_/);
    expect((await accountForApiKey(db, apiKey))?.id).toBe(accountId);

    const granted = admin('credits:grant', '--account', accountId, '--amount', '250');
    expect(granted.json()).toEqual({ accountId, balance: 750 });

    const key = admin('key:create', '--account', accountId);
    const { keyId, apiKey: second } = key.json() as { keyId: string; apiKey: string };
    expect(keyId).toMatch(/^key_/);
    expect(second).not.toBe(apiKey);

    const expiring = admin('key:create', '--account', accountId, '--expires-in', '30d').json() as { expiresAt: string };
    expect(Date.parse(expiring.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    expect(admin('key:revoke', '--key', second).json()).toEqual({
      revoked: true,
      keyId: expect.stringMatching(/^key_/),
      accountId,
      everywhere: true,
    });
    expect(await accountForApiKey(db, second)).toBeNull();
    expect((await accountForApiKey(db, apiKey))?.id).toBe(accountId);

    const shown = admin('account:show', '--account', accountId).json();
    expect(shown).toMatchObject({ accountId, name: 'Acme', credits: { balance: 750, reserved: 0, available: 750 } });
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
  }, 60_000);

  it('when the credit counters are checked against the ledger, then agreement exits 0 and a discrepancy exits 2 naming the account', async () => {
    const { accountId } = admin('account:create', '--name', 'Audit', '--credits', '300').json() as { accountId: string };
    const clean = admin('credits:verify', '--account', accountId);
    expect(clean.code).toBe(0);
    expect(clean.json()).toEqual({ ok: true, discrepancies: [] });
    await db.sql.query('UPDATE accounts SET balance = balance + 1 WHERE id = $1', [accountId]);
    const drifted = admin('credits:verify', '--account', accountId);
    expect(drifted.code).toBe(2);
    expect(drifted.json()).toEqual({
      ok: false,
      discrepancies: [{ accountId, counters: { balance: 301, reserved: 0 }, ledger: { balance: 300, reserved: 0 } }],
    });
    await db.sql.query('UPDATE accounts SET balance = balance - 1 WHERE id = $1', [accountId]);
  }, 60_000);

  it.each([
    [['account:create'], /--name is required/],
    [['account:create', '--name', 'x', '--credits', 'lots'], /--credits must be a whole number/],
    [['credits:grant', '--account', 'acc_nope', '--amount', '5'], /no account acc_nope/],
    [['key:revoke', '--key', 'lg_live_unknown'], /no such API key/],
    [['key:create', '--acount', 'x'], /unknown argument/],
    [['key:create', '--account', 'acc_x', '--expires-in', 'forever'], /--expires-in must be a number of days or hours/],
    [['launch:rockets'], /unknown command/],
    [[], /usage:/],
    [['key:revoke', '--id', 'key_nope'], /no key key_nope/],
    [['job:show', '--job', 'job_nope'], /no job job_nope/],
    [['ledger:show', '--account', 'acc_nope'], /no account acc_nope/],
  ])(
    'when called with %j, then a clear message on stderr and a non-zero exit',
    (args, message) => {
      const result = admin(...args);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
    },
    30_000,
  );
});

describe('npm run admin: listing, revoking by id, jobs and the ledger', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when --help is asked for, then the usage goes to stdout and the exit is 0', () => {
    const help = admin('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/key:revoke --id KEY_ID/);
    expect(help.stderr).toBe('');
  });

  it('when accounts and keys are listed, then JSON off a terminal, a table with --table, and a key is revoked by its id', async () => {
    const { accountId, apiKey } = admin('account:create', '--name', 'Lister', '--credits', '40').json() as {
      accountId: string;
      apiKey: string;
    };
    const accounts = admin('account:list').json() as { rows: Array<Record<string, unknown>> };
    expect(accounts.rows).toContainEqual(
      expect.objectContaining({ accountId, name: 'Lister', balance: 40, reserved: 0, available: 40, activeKeys: 1 }),
    );

    const keys = admin('key:list', '--account', accountId).json() as { rows: Array<Record<string, unknown>> };
    expect(keys.rows).toEqual([
      {
        keyId: expect.stringMatching(/^key_/),
        prefix: apiKey.slice(0, 12),
        createdAt: expect.any(String),
        lastUsedAt: null,
        expiresAt: null,
        revokedAt: null,
      },
    ]);
    const keyId = keys.rows[0]!.keyId as string;

    const table = admin('key:list', '--account', accountId, '--table');
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toBe(`accountId: ${accountId}`);
    expect(lines[2]).toMatch(/^keyId\s+prefix\s+createdAt\s+lastUsedAt\s+expiresAt\s+revokedAt$/);
    expect(lines[4]).toContain(keyId);

    expect(admin('key:revoke', '--id', keyId).json()).toEqual({ revoked: true, keyId, accountId, everywhere: true });
    expect(await accountForApiKey(db, apiKey)).toBeNull();
    const after = admin('key:list', '--account', accountId, '--json').json() as { rows: Array<{ revokedAt: string | null }> };
    expect(after.rows[0]!.revokedAt).toEqual(expect.any(String));
  }, 60_000);

  it('when an operator shows and cancels a queued job, then it is CANCELLED as by its owner, its queue entry gone, and the ledger shows the reservation released', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const created = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 10 }, { Prefer: 'respond-async' });
    expect(created.status).toBe(202);
    const jobId = created.body.jobId as string;
    const env = { QUEUE_PREFIX: world.config.redis.queuePrefix };

    expect(adminWith(env, 'job:show', '--job', jobId).json()).toMatchObject({
      jobId,
      accountId: account.accountId,
      status: 'queued',
      requestedCount: 10,
      creditsReserved: 20,
    });
    const cancelled = adminWith(env, 'job:cancel', '--job', jobId);
    expect(cancelled.code).toBe(0);
    expect(cancelled.json()).toMatchObject({
      jobId,
      status: 'CANCELLED',
      stopReason: 'cancelled_by_owner',
      deliveredCount: 0,
      creditsCharged: 0,
      creditsReserved: 0,
    });
    const queue = world.api.deps.producer.queues().find((q) => q.name === 'google_maps')!;
    expect(await queue.getJob(jobId)).toBeUndefined();
    expect((await world.http.get(`/api/v1/leads/jobs/${jobId}`).set(account.auth)).body).toMatchObject({
      status: 'CANCELLED',
      terminal: { stopReason: 'cancelled_by_owner' },
    });
    // again: the same answer, as DELETE is idempotent
    expect(adminWith(env, 'job:cancel', '--job', jobId).json()).toMatchObject({ status: 'CANCELLED' });

    const ledger = admin('ledger:show', '--account', account.accountId).json() as {
      balance: number;
      reserved: number;
      rows: Array<Record<string, unknown>>;
    };
    expect(ledger).toMatchObject({ accountId: account.accountId, balance: 1_000, reserved: 0 });
    expect(ledger.rows.map((r) => [r.kind, r.amount, r.jobId, r.balance, r.reserved])).toEqual([
      ['grant', 1_000, null, 1_000, 0],
      ['reserve', 20, jobId, 1_000, 20],
      ['release', 20, jobId, 1_000, 0],
    ]);
  }, 60_000);

  it('when an operator cancels a job whose account has a webhook endpoint, then the cancelled event is recorded and enqueued at once, not left to the sweep', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    // Written as the API would store it; the test's sweep waits 10 minutes (setup-env), so an entry now is the CLI's.
    await world.db.webhookEndpoint.create({
      data: {
        id: 'whep_0123456789abcdef0123abcd',
        accountId: account.accountId,
        url: 'https://hooks.example/leadgen',
        events: ['job.cancelled'],
        secret: newWebhookSecret(),
      },
    });
    const created = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 10 }, { Prefer: 'respond-async' });
    const jobId = created.body.jobId as string;
    expect(adminWith({ QUEUE_PREFIX: world.config.redis.queuePrefix }, 'job:cancel', '--job', jobId).json()).toMatchObject({
      jobId,
      status: 'CANCELLED',
    });
    const deliveries = await world.db.webhookDelivery.findMany({ where: { jobId } });
    expect(deliveries.map((d) => [d.endpointId, d.eventType])).toEqual([['whep_0123456789abcdef0123abcd', 'job.cancelled']]);
    expect(await world.api.deps.webhooks.queue().getJobState(deliveries[0]!.id)).not.toBe('unknown');
  }, 60_000);

  it('when a finished job is cancelled, then one line says why and the exit is non-zero', async () => {
    const { accountId } = await buildAccount(world.db, { credits: 1_000 });
    const failed = await buildJob(world.db, { accountId, status: 'FAILED' });
    const refused = adminWith({ QUEUE_PREFIX: world.config.redis.queuePrefix }, 'job:cancel', '--job', failed.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/is FAILED already: only a queued or running job can be cancelled$/),
    ]);
  }, 30_000);
});

describe('npm run admin against a database that is not ready', () => {
  const base = new URL(process.env.DATABASE_URL!);
  const named = (name: string) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();
  const emptyName = `${base.pathname.slice(1)}_admin_empty`;

  // As the owner: the runtime role may not create databases (decision 035).
  const asOwner = async (statement: string) => {
    const owner = new Client({ connectionString: process.env.DATABASE_OWNER_URL });
    await owner.connect();
    await owner.query(statement).finally(() => owner.end());
  };
  beforeAll(async () => {
    await asOwner(`DROP DATABASE IF EXISTS "${emptyName}"`);
    await asOwner(`CREATE DATABASE "${emptyName}"`);
  });
  afterAll(async () => {
    await asOwner(`DROP DATABASE IF EXISTS "${emptyName}"`);
  });

  it.each([
    ['a database that does not exist', `${base.pathname.slice(1)}_admin_missing`],
    ['a database without the migrations', emptyName],
  ])(
    'when run against %s, then one line says to run npm run db:migrate first, with no stack',
    (_what, name) => {
      for (const args of [['account:list'], ['key:revoke', '--id', 'key_x'], ['account:show', '--account', 'acc_x']]) {
        const result = adminWith({ DATABASE_URL: named(name) }, ...args);
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^admin: .*run npm run db:migrate first/)]);
      }
    },
    60_000,
  );
});

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { accountForApiKey, createDatabase, type Database } from '@leadgen/db';

// The operator CLI as an operator runs it: a real process, JSON on stdout, messages on stderr.
const ROOT = path.resolve(__dirname, '../../..');

function admin(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), ...args], {
    cwd: ROOT,
    env: process.env,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) as Record<string, unknown> };
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

    expect(admin('key:revoke', '--key', second).json()).toEqual({ revoked: true });
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
  ])('when called with %j, then a clear message on stderr and a non-zero exit', (args, message) => {
    const result = admin(...args);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  }, 30_000);
});

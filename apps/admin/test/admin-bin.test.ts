import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { authenticateApiKey, createDatabase, findAccount, hashApiKey, type Database } from '@leadgen/db';

const accountForApiKey = async (db: Database, apiKey: string) => (await authenticateApiKey(db, hashApiKey(apiKey)))?.account ?? null;

// The CLI as a script pipes it: `npx leadgen-admin ... | jq .` reads stdout whole, so nothing but the answer
// may be there (npm run prints its banner on stdout, and the key account:create prints once was lost).
const ROOT = path.resolve(__dirname, '../../..');

function run(command: string, args: string[]) {
  // stdin a closed pipe, as in CI or a cron job: nobody at a terminal.
  const result = spawnSync(command, args, { cwd: ROOT, env: process.env, encoding: 'utf8', input: '' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 1 });
});
afterAll(() => db.$disconnect());

describe('npx leadgen-admin', () => {
  it('when account:create is piped to a JSON reader, then stdout is that one JSON object and its key works', async () => {
    const client = path.join(ROOT, 'packages/db/src/generated/prisma/client.ts');
    const generatedAt = statSync(client).mtimeMs;
    const created = run('npx', ['--offline', '--no-install', 'leadgen-admin', 'account:create', '--name', 'Piped', '--credits', '5']);
    // stderr may carry npm's own warnings (an engine mismatch on a developer's Node) and the build's line: not read.
    expect(created.code).toBe(0);
    // npx links the project into its cache and runs its postinstall the first time: the Prisma client, up to date,
    // is left as it is (rewritten, it failed other tests reading it at the time: scripts/prisma-generate.js).
    expect(statSync(client).mtimeMs).toBe(generatedAt);
    // The whole of stdout parses, as `| jq .` would read it.
    const { accountId, apiKey } = JSON.parse(created.stdout) as { accountId: string; apiKey: string };
    expect((await accountForApiKey(db, apiKey))?.id).toBe(accountId);
  }, 180_000);
});

describe('admin account:delete without a terminal', () => {
  const admin = (...args: string[]) => run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), ...args]);

  it('when --yes is not given and there is no terminal to ask on, then it refuses with one line naming --yes and deletes nothing', async () => {
    const { accountId } = JSON.parse(admin('account:create', '--name', 'Keep me').stdout) as { accountId: string };
    const refused = admin('account:delete', '--account', accountId);
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 64, stdout: '' });
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/no terminal to ask on: pass --yes to confirm$/)]);
    expect(await findAccount(db, accountId)).not.toBeNull();

    const deleted = admin('account:delete', '--account', accountId, '--yes');
    expect({ code: deleted.code, stderr: deleted.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(deleted.stdout)).toMatchObject({ deleted: true, accountId });
    expect(await findAccount(db, accountId)).toBeNull();
  }, 180_000);

  it('when a deletion stopped once the account row was gone, then account:delete carries its ledger to the end and records it', async () => {
    const { accountId } = JSON.parse(admin('account:create', '--name', 'Half gone', '--credits', '5').stdout) as { accountId: string };
    // the figures taken and the account row gone, its ledger not yet (decision 043): where a deletion may stop
    const first = await db.sql.query<{ o_outcome: string }>('SELECT o_outcome FROM delete_account($1, 1)', [accountId]);
    expect(first.rows).toEqual([{ o_outcome: 'ledger' }]);

    const deleted = admin('account:delete', '--account', accountId, '--yes');
    expect({ code: deleted.code, stderr: deleted.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(deleted.stdout)).toMatchObject({ deleted: true, accountId });
    const { rows } = await db.sql.query<{ ledger: number; under_way: number; recorded: number }>(
      `SELECT (SELECT count(*)::int FROM credit_ledger WHERE account_id = $1) AS ledger,
              (SELECT count(*)::int FROM account_deletions WHERE account_id = $1) AS under_way,
              (SELECT count(*)::int FROM audit_events WHERE account_id = $1 AND action = 'account.deleted') AS recorded`,
      [accountId],
    );
    expect(rows[0]).toEqual({ ledger: 0, under_way: 0, recorded: 1 });
  }, 180_000);

  it('when --yes is given a value, then it is refused as a usage error', () => {
    const wrong = admin('account:delete', '--account', 'acc_x', '--yes=no');
    expect({ code: wrong.code, stderr: wrong.stderr.trim() }).toEqual({ code: 64, stderr: '--yes takes no value' });
  });
});

describe('a DATABASE_URL whose user PostgreSQL refuses', () => {
  const wrongUser = Object.assign(new URL(process.env.DATABASE_URL!), { username: 'no_such_role_h31' }).toString();
  const { DATABASE_OWNER_URL: _ownerUrl, ...withoutOwnerUrl } = process.env;
  const withUrl = (entry: string, ...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, entry), ...args], {
      cwd: ROOT,
      // No owner URL: db:migrate then migrates as DATABASE_URL, whose refusal it names (decision 035).
      env: { ...withoutOwnerUrl, DATABASE_URL: wrongUser },
      encoding: 'utf8',
      input: '',
    });

  it.each([
    ['admin', 'apps/admin/src/main.ts', ['account:list'], 'admin'],
    ['db:migrate', 'packages/db/src/migrate-cli.ts', [], 'db:migrate failed'],
  ])(
    'when %s runs, then one line names DATABASE_URL and the server reason, not Prisma text',
    (_name, entry, args, lead) => {
      const result = withUrl(entry, ...args);
      expect(result.status).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        `${lead}: PostgreSQL refused the login in DATABASE_URL (role "no_such_role_h31" does not exist): fix its user or password`,
      ]);
    },
    180_000,
  );
});

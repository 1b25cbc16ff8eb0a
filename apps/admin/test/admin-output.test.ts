import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createDatabase, findJob, type Database } from '@leadgen/db';
import { buildAccount, buildJob } from '../../../test/factories';
import { freePort } from '@leadgen/testing';

// What a script sees of the CLI: its output whole through a pipe, and help per command.
const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(path.join(ROOT, 'apps/admin/src/main.ts'))}`;

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 1 });
});
afterAll(() => db.$disconnect());

describe('npm run admin, as scripts run it', () => {
  it('when a large ledger is printed into a pipe that is read slowly, then every byte arrives and the JSON parses', async () => {
    const { accountId } = await buildAccount(db, { credits: 1 });
    // 2,000 grants: about 250 KB of JSON, several times a pipe's 64 KiB buffer.
    await db.sql.query(
      `WITH g AS (INSERT INTO credit_ledger (account_id, kind, amount) SELECT $1, 'grant', 1 FROM generate_series(1, 2000) RETURNING amount)
       UPDATE accounts SET balance = balance + (SELECT sum(amount) FROM g) WHERE id = $1`,
      [accountId],
    );
    // The reader starts a second late, as a `| jq` on a busy machine may: the CLI must not exit before the pipe drained.
    const result = spawnSync('bash', ['-o', 'pipefail', '-c', `${ADMIN} ledger:show --account ${accountId} --json | (sleep 1; cat)`], {
      cwd: ROOT,
      env: process.env,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    expect(result.stdout.length).toBeGreaterThan(200_000);
    const ledger = JSON.parse(result.stdout) as { rows: unknown[]; balance: number };
    expect(ledger.rows).toHaveLength(2001);
    expect(ledger.balance).toBe(2001);
  });

  it('when --help follows a command, then that command is explained; an unknown one gets the whole usage', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), ...args], {
        cwd: ROOT,
        env: process.env,
        encoding: 'utf8',
      });
    const cancel = run('job:cancel', '--help');
    expect(cancel.status).toBe(0);
    expect(cancel.stdout).toContain('usage: npx leadgen-admin job:cancel --job ID');
    expect(cancel.stdout).toContain('cancel a queued or running job');
    expect(cancel.stdout).not.toContain('account:create');
    const unknown = run('nothing:here', '--help');
    expect(unknown.stdout).toContain('account:create --name NAME');
  });
});

describe('npm run admin -- job:cancel', () => {
  const cancel = (jobId: string, env: Record<string, string> = {}) => {
    const started = Date.now();
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), 'job:cancel', '--job', jobId, '--json'],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    return { ...result, seconds: (Date.now() - started) / 1000 };
  };

  it('when Redis is down, then the job is cancelled in PostgreSQL and the CLI says so in one line and exits 1 within seconds', async () => {
    const { accountId } = await buildAccount(db);
    const job = await buildJob(db, { accountId, status: 'queued' });
    // A port nothing listens on: refused at once, as a stopped Redis is.
    // What starting the CLI and reading the job costs on this machine now (tests share two busy cores).
    const started = Date.now();
    spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), 'job:show', '--job', job.id], {
      cwd: ROOT,
      env: process.env,
    });
    const baseline = (Date.now() - started) / 1000;
    const result = cancel(job.id, { REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/is cancelled, but Redis \(REDIS_URL\) did not answer/)]);
    // Redis' share of the wait: a few seconds at most (each Redis step of the settlement is bounded), never a hang.
    expect(result.seconds - baseline).toBeLessThan(10);
    expect((await findJob(db, job.id))?.status).toBe('CANCELLED');
  });

  it('when Redis is up, then the fleet is told: nothing on stderr, exit 0', async () => {
    const { accountId } = await buildAccount(db);
    const job = await buildJob(db, { accountId, status: 'running' });
    const result = cancel(job.id);
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toMatchObject({ jobId: job.id, status: 'CANCELLED' });
  });
});

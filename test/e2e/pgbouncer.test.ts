import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findCreditDiscrepancies } from '@leadgen/db';
import { freePort, generate, idempotencyKey, pollUntilTerminal, startWorld, type TestWorld } from '../harness';
import { buildAccount } from '../factories';
import { pgbouncerBinary, startPgBouncer } from '../pgbouncer-process';

// The whole service behind a real PgBouncer in transaction mode, with fewer server connections than
// the processes' pools: any session state or named prepared statement would break here.
// Skipped only on a developer machine without Debian's pgbouncer package; CI installs it and runs this.
const describeWithBouncer = pgbouncerBinary || process.env.CI ? describe : describe.skip;

async function startBouncer(port: number, dir: string): Promise<ChildProcess> {
  const target = new URL(process.env.DATABASE_URL!);
  writeFileSync(path.join(dir, 'userlist.txt'), `"${decodeURIComponent(target.username) || 'postgres'}" ""\n`);
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    `[databases]
* = host=${target.hostname} port=${target.port || 5432}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${dir}/userlist.txt
pool_mode = transaction
default_pool_size = 3
max_client_conn = 500
logfile = ${dir}/pgbouncer.log
`,
  );
  chmodSync(dir, 0o777);
  return startPgBouncer(path.join(dir, 'pgbouncer.ini'), port);
}

describeWithBouncer('behind PgBouncer in transaction mode', () => {
  let dir: string;
  let bouncer: ChildProcess;
  let world: TestWorld;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'leadgen-pgbouncer-'));
    const port = await freePort();
    bouncer = await startBouncer(port, dir);
    const url = new URL(process.env.DATABASE_URL!);
    url.port = String(port);
    url.hostname = '127.0.0.1';
    world = await startWorld({ env: { DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: '8', WORKER_CONCURRENCY: '20' } });
  }, 30_000);

  afterAll(async () => {
    await world?.close();
    bouncer?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('when jobs of every kind run through 3 server connections, then each ends right, billed once, and the counters match the ledger', async () => {
    const account = await buildAccount(world.db, { credits: 100_000 });
    const bodies = [
      { category: 'dentist', state: 'US', maxResults: 25 },
      { source: 'linkedin', category: 'cto', state: 'DE', maxResults: 12 },
      { source: 'shopify', category: 'coffee', state: 'US', maxResults: 5 },
      { category: 'plumber', state: 'GB', keyword: 'sandbox:only=4' },
      { category: 'plumber', state: 'GB', keyword: 'sandbox:fail_after=10', maxResults: 30 },
    ];
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => generate(world, account, bodies[i % bodies.length])));
    const jobs = await Promise.all(answers.map((a) => (a.status === 200 ? a.body : pollUntilTerminal(world, account, a.body.jobId))));
    expect(jobs.map((j) => j.status).sort()).toEqual([...Array(18).fill('COMPLETE'), ...Array(12).fill('PARTIAL')].sort());

    // Replays, a reused key, a cancel and a 402, each through the bouncer.
    const key = idempotencyKey();
    const first = await generate(world, account, bodies[0], { 'Idempotency-Key': key, Prefer: 'respond-async' });
    const again = await generate(world, account, bodies[0], { 'Idempotency-Key': key });
    expect(again.body.jobId).toBe(first.body.jobId);
    expect(again.get('Idempotent-Replayed')).toBe('true');
    expect((await generate(world, account, bodies[1], { 'Idempotency-Key': key })).status).toBe(422);
    const slow = await generate(
      world,
      account,
      { category: 'bakery', state: 'FR', keyword: 'sandbox:delay=200', maxResults: 50 },
      { Prefer: 'respond-async' },
    );
    const cancelled = await world.http.delete(`/api/v1/leads/jobs/${slow.body.jobId}`).set(account.auth);
    expect(cancelled.body.status).toBe('CANCELLED');
    const poor = await buildAccount(world.db, { credits: 5 });
    expect((await generate(world, poor, bodies[0])).status).toBe(402);

    const discrepancies = (await findCreditDiscrepancies(world.db)).filter(
      (d) => d.accountId === account.accountId || d.accountId === poor.accountId,
    );
    expect(discrepancies).toEqual([]);
    expect(readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8')).not.toMatch(/prepared statement|server_reset_query|ERROR/i);
  }, 60_000);
});

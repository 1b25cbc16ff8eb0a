import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { eraseSubject, expireLeads } from '@leadgen/db';
import { normalizeLinkedinUrl } from '@leadgen/domain';
import { ROOT } from '@leadgen/testing';
import { buildAccount, buildDeliveredJobs } from '../factories';
import { generate, idempotencyKey, pollUntilTerminal, startWorld, type TestWorld } from '../harness';
import { ownDatabase, SCALE, sleep } from './fault-world';
import { checkInvariants, describeViolations } from './invariants';

type Lead = { email: string | null };

// What a hostile client (or plain bad timing) tries against erasure and retention: an erasure while many jobs
// are delivering the person, and a retention run while exports stream. A database of the file's own: the
// erased subjects' list is global, and the retention run empties every old enough job it finds.
describe('data protection under racing traffic', () => {
  let world: TestWorld;
  let database: Awaited<ReturnType<typeof ownDatabase>>;
  // Accounts whose jobs the factories wrote straight into the tables, without a ledger: no invariant is asked of them.
  const builtByFactories: string[] = [];
  beforeAll(async () => {
    database = await ownDatabase();
    // Six downloads race the retention run at once: the account's cap on downloads at once must not refuse them.
    world = await startWorld({
      env: { DATABASE_URL: database.url, SANDBOX_PAGE_DELAY_MS: '150', WORKER_CONCURRENCY: '6', EXPORTS_PER_ACCOUNT_AT_ONCE: '8' },
    });
  }, 120_000);
  afterAll(async () => {
    await world.close();
    await database.drop();
  });

  it('when subjects are erased while many jobs are delivering them, then none comes out of any job, and every invariant holds', async () => {
    const area = { category: 'dentist', state: 'US', city: 'Houston', maxResults: 60 };
    // The sandbox is deterministic: a scout learns who is on the later pages of this search.
    const scout = await buildAccount(world.db, { credits: 100_000 });
    const known = await generate(world, scout, area, { Prefer: 'wait=60' });
    expect(known.status).toBe(200);
    const later = [...new Set((known.body.leads as Lead[]).slice(20).flatMap((l) => (l.email ? [l.email] : [])))].slice(0, 5);
    expect(later.length).toBeGreaterThan(0);

    const accounts = await Promise.all(Array.from({ length: 4 }, () => buildAccount(world.db, { credits: 100_000 })));
    const started = await Promise.all(
      Array.from({ length: Math.min(SCALE.jobs, 12) }, (_, i) =>
        generate(world, accounts[i % accounts.length]!, area, { Prefer: 'respond-async' }),
      ),
    );
    for (const res of started) expect(res.status).toBe(202);
    // Erase each subject while the jobs are between their first pages and the ones holding it, some at once.
    await sleep(300);
    await Promise.all(later.map((email, i) => sleep(i * 100).then(() => eraseSubject(world.db, { kind: 'email', value: email }))));

    const finished = await Promise.all(
      started.map((res, i) =>
        pollUntilTerminal(world, accounts[i % accounts.length]!, res.body.jobId as string, SCALE.settleSeconds * 1000),
      ),
    );
    for (const job of finished) for (const email of later) expect(JSON.stringify(job.leads)).not.toContain(email);
    const { rows } = await world.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM leads WHERE job_id = ANY($1) AND data->>'email' = ANY($2)`,
      [finished.map((j) => j.jobId), later],
    );
    expect(rows[0]!.n).toBe(0);
    const violations = await checkInvariants(world.config.database.url, { accountIds: accounts.map((a) => a.accountId) });
    expect(describeViolations(violations)).toBe('');
  });

  it('when LinkedIn profiles are erased while a batch’s overlapping children deliver them, then the batch holds neither, and once it ends no table but the erased-subjects list names them', async () => {
    type Person = { person: { linkedinUrl: string } };
    const people = { source: 'linkedin', category: 'cto', state: 'US', city: 'Houston', maxResults: 60 };
    const scout = await buildAccount(world.db, { credits: 100_000 });
    const known = await generate(world, scout, people, { Prefer: 'wait=60' });
    expect(known.status).toBe(200);
    const profiles = (known.body.leads as Person[]).map((l) => l.person.linkedinUrl);
    // One on the first page (delivered, so claimed, before the erasure), one on a later page (not yet).
    const [early, late] = [profiles[2]!, profiles[45]!];

    const account = await buildAccount(world.db, { credits: 100_000 });
    const created = await world.http
      .post('/api/v1/leads/batches')
      .set(account.auth)
      .set('Idempotency-Key', idempotencyKey())
      .send({ requests: Array.from({ length: 4 }, () => people) });
    expect(created.status).toBe(202);
    const batchId = created.body.batchId as string;
    const readBatch = async () => (await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth)).body;
    for (const until = Date.now() + 30_000; (await readBatch()).deliveredCount < 10;) {
      if (Date.now() > until) throw new Error('the batch delivered no page');
      await sleep(20);
    }
    await Promise.all([early, late].map((url) => eraseSubject(world.db, { kind: 'linkedin', value: normalizeLinkedinUrl(url)! })));
    for (const until = Date.now() + SCALE.settleSeconds * 1000; !(await readBatch()).terminal;) {
      if (Date.now() > until) throw new Error('the batch did not end');
      await sleep(100);
    }

    const leads = await world.http.get(`/api/v1/leads/batches/${batchId}/leads?limit=1000`).set(account.auth);
    const delivered = (leads.body.items as Array<{ lead: Person }>).map((item) => item.lead.person.linkedinUrl);
    expect(delivered.length).toBeGreaterThan(40);
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(delivered).not.toContain(early);
    expect(delivered).not.toContain(late);
    // Every table's data, but the list that must keep the erased subjects to honour them.
    const dump = execFileSync('pg_dump', ['--data-only', '--no-owner', '--exclude-table=global_suppressions', database.url], {
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
    });
    for (const url of [early, late]) expect(dump.includes(new URL(url).pathname.split('/')[2]!)).toBe(false);
    expect(dump).toContain(new URL(delivered[0]!).pathname.split('/')[2]!);
    const violations = await checkInvariants(world.config.database.url, { accountIds: [account.accountId, scout.accountId] });
    expect(describeViolations(violations)).toBe('');
  });

  it('when a retention run races exports, then each export includes a lead or skips it, and none fails mid-stream or answers 5xx', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    builtByFactories.push(account.accountId);
    const jobIds = await buildDeliveredJobs(world.db, account.accountId, 30, 100);
    // Half of them finished long ago: the run empties those while the downloads read them.
    const old = jobIds.filter((_, i) => i % 2 === 0);
    await world.db.sql.query(`UPDATE jobs SET finished_at = now() - interval '400 days' WHERE id = ANY($1)`, [old]);

    const download = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${world.api.port}${path}`, { headers: { Authorization: account.auth.Authorization! } });
      const body = await res.text();
      return { path, status: res.status, body };
    };
    const exports = Array.from({ length: 6 }, (_, i) =>
      download(i % 3 === 0 ? '/api/v1/leads.jsonl' : i % 3 === 1 ? '/api/v1/leads.csv' : `/api/v1/leads/jobs/${old[i]}/leads.jsonl`),
    );
    const run = sleep(20).then(() => expireLeads(world.db, 365, { batch: 3 }));
    const [answers, report] = await Promise.all([Promise.all(exports), run]);
    expect(report.jobs).toBe(old.length);

    for (const { path, status, body } of answers) {
      expect([path, [200, 410].includes(status)]).toEqual([path, true]);
      if (status === 410) {
        expect(JSON.parse(body)).toMatchObject({ code: 'leads_expired' });
        continue;
      }
      // A complete download: JSON Lines ends with a newline and every line parses; CSV ends with CRLF.
      if (path.endsWith('.jsonl')) {
        expect(body.endsWith('\n') || body === '').toBe(true);
        const lines = body.split('\n').filter(Boolean);
        const items = lines.map((line) => JSON.parse(line) as { jobId: string; position: number });
        // Whole jobs or none of a job's: positions of one job come in order without a gap before the end.
        const byJob = new Map<string, number[]>();
        for (const item of items) byJob.set(item.jobId, [...(byJob.get(item.jobId) ?? []), item.position]);
        for (const positions of byJob.values()) expect(positions).toEqual(positions.map((_, i) => positions[0]! + i));
        // Jobs that kept their leads are always there, whole.
        if (path === '/api/v1/leads.jsonl') for (const id of jobIds.filter((_, i) => i % 2 === 1)) expect(byJob.get(id)).toHaveLength(100);
      } else {
        expect(body.endsWith('\r\n')).toBe(true);
      }
    }
    // After the run, every expired job answers 410 and the account's export holds exactly the kept jobs.
    expect((await download(`/api/v1/leads/jobs/${old[0]}/leads.csv`)).status).toBe(410);
    const after = await download('/api/v1/leads.jsonl');
    expect(after.body.split('\n').filter(Boolean)).toHaveLength(15 * 100);
  });

  it('when an account is deleted while its client keeps generating and reading, then no answer is a 5xx, nothing of it is left, and the ledgers that stay add up', async () => {
    const account = await buildAccount(world.db, { credits: 100_000 });
    const area = { category: 'dentist', state: 'US', city: 'Austin', maxResults: 20 };
    const statuses: number[] = [];
    let stop = false;
    const origin = `http://127.0.0.1:${world.api.port}`;
    const headers = { ...account.auth, 'Content-Type': 'application/json' } as Record<string, string>;
    const hammer = Array.from({ length: 4 }, async (_, i) => {
      while (!stop) {
        const res =
          i % 2 === 0
            ? await fetch(`${origin}/api/v1/leads/generate`, {
                method: 'POST',
                headers: { ...headers, 'Idempotency-Key': randomUUID(), Prefer: 'respond-async' },
                body: JSON.stringify(area),
              })
            : await fetch(`${origin}/api/v1/leads/jobs?limit=5`, { headers });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    });
    await sleep(500);
    const deletion = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), 'account:delete', '--account', account.accountId, '--yes', '--json'],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: database.url, QUEUE_PREFIX: world.config.redis.queuePrefix },
      },
    );
    let stderr = '';
    deletion.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => deletion.on('exit', resolve));
    await sleep(300);
    stop = true;
    await Promise.all(hammer);

    expect([code, stderr]).toEqual([0, '']);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // It was a race: jobs were being opened when the command began.
    expect(statuses).toContain(202);
    expect(statuses.slice(-4).every((s) => s === 401)).toBe(true);
    const { rows } = await world.db.sql.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM jobs WHERE account_id = $1) + (SELECT count(*) FROM credit_ledger WHERE account_id = $1)
            + (SELECT count(*) FROM api_keys WHERE account_id = $1) + (SELECT count(*) FROM accounts WHERE id = $1) AS n`,
      [account.accountId],
    );
    expect(Number(rows[0]!.n)).toBe(0);
    const { rows: others } = await world.db.sql.query<{ id: string }>(`SELECT id FROM accounts WHERE NOT (id = ANY($1))`, [
      builtByFactories,
    ]);
    expect(describeViolations(await checkInvariants(world.config.database.url, { accountIds: others.map((r) => r.id) }))).toBe('');
  });
});

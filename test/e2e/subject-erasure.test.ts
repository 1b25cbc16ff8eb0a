import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { dropDatabase, eraseSubject, migrate } from '@leadgen/db';
import { buildAccount } from '../factories';
import { generate, pollUntilTerminal, startWorld, type TestWorld } from '../harness';
import { scratchDatabaseUrls } from '../runtime-role';
import { ROOT } from '@leadgen/testing';

type Lead = { email: string | null; businessName: string };

// The sandbox is deterministic: the same request gives the same leads to every account.
const request = (maxResults: number) => ({ category: 'dentist', state: 'US', city: 'Austin', maxResults });

// A database of this file's own: the global suppression list is global, and every other test file's
// page commits would have to match against what this one erases.
// Migrated by the owner, used as the runtime role (decision 035).
const scratch = scratchDatabaseUrls(`${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_erasure_${randomBytes(3).toString('hex')}`);
const databaseUrl = scratch.runtimeUrl;

describe('erasing a data subject (admin subject:erase)', () => {
  let world: TestWorld;
  beforeAll(async () => {
    await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
    world = await startWorld({ env: { DATABASE_URL: databaseUrl, SANDBOX_PAGE_DELAY_MS: '250' } });
  }, 60_000);
  afterAll(async () => {
    await world.close();
    await dropDatabase(scratch.ownerUrl);
  });

  const leadsOf = async (jobId: string) =>
    (await world.db.lead.findMany({ where: { jobId }, orderBy: { position: 'asc' } })).map((l) => l.data as unknown as Lead);

  it('when an email is erased, then every account loses the leads holding it, later jobs never deliver it, and running it again deletes nothing', async () => {
    const first = await buildAccount(world.db, { credits: 10_000 });
    const second = await buildAccount(world.db, { credits: 10_000 });
    const a = await generate(world, first, request(10), { Prefer: 'wait=60' });
    const b = await generate(world, second, request(10), { Prefer: 'wait=60' });
    expect([a.status, b.status]).toEqual([200, 200]);
    const email = (a.body.leads as Lead[]).find((l) => l.email)!.email!;
    expect((b.body.leads as Lead[]).some((l) => l.email === email)).toBe(true);

    // A receiver that echoed the person in its answer: the attempt keeps the answer's first bytes.
    const { rows: deliveries } = await world.db.sql.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (account_id, url, event_type) VALUES ($1, 'https://hooks.example/x', 'job.completed') RETURNING id`,
      [first.accountId],
    );
    await world.db.sql.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, url, started_at, response_status, latency_ms, response_excerpt, succeeded)
       VALUES ($1, 1, 'https://hooks.example/x', now(), 400, 5, $2, false), ($1, 2, 'https://hooks.example/x', now(), 400, 5, 'unrelated', false)`,
      [deliveries[0]!.id, `{"error":"unknown contact ${email}"}`],
    );
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), 'subject:erase', '--email', email.toUpperCase(), '--json'],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl, QUEUE_PREFIX: world.config.redis.queuePrefix },
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(0);
    const printed = JSON.parse(run.stdout) as {
      leadsDeleted: number;
      webhookExcerptsCleared: number;
      rows: Array<{ accountId: string; leads: number }>;
    };
    expect(printed.rows.map((r) => r.accountId)).toEqual(expect.arrayContaining([first.accountId, second.accountId]));
    expect(printed.webhookExcerptsCleared).toBe(1);
    const { rows: excerpts } = await world.db.sql.query<{ response_excerpt: string | null }>(
      'SELECT response_excerpt FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [deliveries[0]!.id],
    );
    expect(excerpts.map((e) => e.response_excerpt)).toEqual([null, 'unrelated']);
    for (const jobId of [a.body.jobId, b.body.jobId]) expect((await leadsOf(jobId)).some((l) => l.email === email)).toBe(false);
    // The job keeps its counts and its charge; its body's leads no longer hold the person.
    // (The API had kept the finished body in memory: the erasure's word over Redis makes it read it again.)
    let after = await world.http.get(`/api/v1/leads/jobs/${a.body.jobId}`).set(first.auth);
    for (let i = 0; i < 40 && JSON.stringify(after.body).includes(email); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await world.http.get(`/api/v1/leads/jobs/${a.body.jobId}`).set(first.auth);
    }
    expect(after.body.progress).toEqual({ requestedCount: 10, deliveredCount: 10 });
    expect(after.body.creditsCharged).toBe(a.body.creditsCharged);
    expect(JSON.stringify(after.body)).not.toContain(email);

    const third = await buildAccount(world.db, { credits: 10_000 });
    const c = await generate(world, third, request(10), { Prefer: 'wait=60' });
    expect(c.status).toBe(200);
    expect(JSON.stringify(c.body.leads)).not.toContain(email);
    expect((await world.db.job.findUniqueOrThrow({ where: { id: c.body.jobId } })).skippedSuppressed).toBeGreaterThanOrEqual(1);

    expect((await eraseSubject(world.db, { kind: 'email', value: email })).leads).toBe(0);
    // The trail says an erasure happened to the account, not who was erased.
    const trail = await world.http.get('/api/v1/audit-events?action=subject.erased').set(first.auth);
    expect(trail.body.items[0]).toMatchObject({ actor: 'operator', summary: { kind: 'email' } });
    expect(JSON.stringify(trail.body)).not.toContain(email);
  }, 120_000);

  it('when a LinkedIn profile is erased, then the leads holding it go in every account, however the URL is written, and no later job delivers it', async () => {
    type Person = { person: { linkedinUrl: string; fullName: string } };
    const people = { source: 'linkedin', category: 'software', state: 'US', maxResults: 10 };
    const first = await buildAccount(world.db, { credits: 10_000 });
    const second = await buildAccount(world.db, { credits: 10_000 });
    const a = await generate(world, first, people, { Prefer: 'wait=60' });
    const b = await generate(world, second, people, { Prefer: 'wait=60' });
    expect([a.status, b.status]).toEqual([200, 200]);
    const profile = (a.body.leads as Person[])[3]!.person.linkedinUrl;
    expect((b.body.leads as Person[]).some((l) => l.person.linkedinUrl === profile)).toBe(true);
    const slug = new URL(profile).pathname.split('/')[2]!;

    const erase = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), 'subject:erase', ...args, '--json'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl, QUEUE_PREFIX: world.config.redis.queuePrefix },
        encoding: 'utf8',
      });
    const refused = erase('--linkedin-url', 'https://www.linkedin.com/company/acme');
    expect(refused.status).toBe(64);
    expect(refused.stderr).toContain('not a LinkedIn profile URL');

    // Written as a person pasting it would: another subdomain, upper case, a tracking query, a trailing slash.
    const run = erase('--linkedin-url', `HTTPS://UK.LINKEDIN.COM/in/${slug.toUpperCase()}/?trk=people`);
    expect(run.status).toBe(0);
    const printed = JSON.parse(run.stdout) as {
      erased: { kind: string; value: string };
      rows: Array<{ accountId: string; leads: number }>;
    };
    expect(printed.erased).toEqual({ kind: 'linkedin', value: `linkedin.com/in/${slug.toLowerCase()}` });
    expect(printed.rows).toEqual(
      expect.arrayContaining([
        { accountId: first.accountId, leads: 1 },
        { accountId: second.accountId, leads: 1 },
      ]),
    );
    for (const jobId of [a.body.jobId, b.body.jobId]) {
      const left = (await leadsOf(jobId)) as unknown as Person[];
      expect(left).toHaveLength(9);
      expect(left.some((l) => l.person.linkedinUrl === profile)).toBe(false);
    }

    const third = await buildAccount(world.db, { credits: 10_000 });
    const c = await generate(world, third, people, { Prefer: 'wait=60' });
    expect(c.status).toBe(200);
    expect(JSON.stringify(c.body.leads)).not.toContain(slug);
    expect((await world.db.job.findUniqueOrThrow({ where: { id: c.body.jobId } })).skippedSuppressed).toBe(1);
    // Idempotent: nothing more to delete.
    expect(JSON.parse(erase('--linkedin-url', profile).stdout)).toMatchObject({ suppressedNow: false, leadsDeleted: 0 });
  }, 120_000);

  it('when an erasure races a job that is delivering the person, then the person does not come out of that job', async () => {
    // Where the person is: a later page of the same request (pages of 10, 250 ms apart).
    const scout = await buildAccount(world.db, { credits: 100_000 });
    const known = await generate(world, scout, { ...request(60), city: 'Dallas' }, { Prefer: 'wait=60' });
    expect(known.status).toBe(200);
    const later = (known.body.leads as Lead[]).slice(30).find((l) => l.email)!.email!;

    const owner = await buildAccount(world.db, { credits: 100_000 });
    const started = await generate(world, owner, { ...request(60), city: 'Dallas' }, { Prefer: 'respond-async' });
    expect(started.status).toBe(202);
    // Erase while the job is between its first pages and the page with the person.
    for (;;) {
      const job = await world.db.job.findUniqueOrThrow({ where: { id: started.body.jobId } });
      if (job.deliveredCount >= 10) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await eraseSubject(world.db, { kind: 'email', value: later });
    const done = await pollUntilTerminal(world, owner, started.body.jobId, 60_000);
    expect(JSON.stringify(done.leads)).not.toContain(later);
    expect((await leadsOf(started.body.jobId)).some((l) => l.email === later)).toBe(false);
  }, 120_000);
});

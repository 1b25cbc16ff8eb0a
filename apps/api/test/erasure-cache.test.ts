import { randomBytes } from 'node:crypto';
import { commitPage, dropDatabase, eraseSubject, ERASURE_EPOCH_MAX_AGE_MS, migrate, recordSettlement } from '@leadgen/db';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, buildJob, buildLead, type TestAccount } from '../../../test/factories';
import { scratchDatabaseUrls } from '../../../test/runtime-role';

// Issue 31, finding 8 (decision 031): an erasure that never reaches this API process through Redis (run
// from an admin CLI with another QUEUE_PREFIX, or with Redis away) must not leave a finished job's kept
// body serving the erased person.
// A database of this file's own: the global suppression list is global, and every other test file's page
// commits would have to match against what this one erases (as test/e2e/subject-erasure.test.ts).
const scratch = scratchDatabaseUrls(`${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_cache_${randomBytes(3).toString('hex')}`);
const databaseUrl = scratch.runtimeUrl;

let world: TestWorld;
let account: TestAccount;
beforeAll(async () => {
  await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
  world = await startWorld({ worker: false, env: { DATABASE_URL: databaseUrl } });
  account = await buildAccount(world.db, { credits: 1_000 });
}, 60_000);
afterAll(async () => {
  await world.close();
  await dropDatabase(scratch.ownerUrl);
});

async function finishedJobWith(email: string): Promise<string> {
  const job = await buildJob(world.db, { accountId: account.accountId, status: 'running', maxResults: 2 });
  const lead = { ...buildLead('google_maps', 1), email };
  const committed = await commitPage(world.db, job.id, [{ dedupKey: `erasure-${email}`, lead, matches: [] }], null);
  expect(committed.kind).toBe('committed');
  await recordSettlement(world.db, job.id, { kind: 'finished' });
  return job.id;
}

const read = (jobId: string) => world.http.get(`/api/v1/leads/jobs/${jobId}`).set(account.auth);

describe('erasure and the API process kept finished-job bodies', () => {
  it('when a subject is erased without a word to this process, then its kept body stops serving the email once the erasure has reported', async () => {
    const email = `erased-${randomBytes(6).toString('hex')}@cache.example`;
    const jobId = await finishedJobWith(email);
    // Read twice: the body is kept in memory.
    for (let i = 0; i < 2; i += 1) {
      const res = await read(jobId);
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body.leads)).toContain(email);
    }
    // The erasure as a CLI with another QUEUE_PREFIX runs it: PostgreSQL only, no message on this API's channel.
    const report = await eraseSubject(world.db, { kind: 'email', value: email });
    expect(report.jobIds).toEqual([jobId]);
    const after = await read(jobId);
    expect(after.status).toBe(200);
    expect(JSON.stringify(after.body)).not.toContain(email);
    expect(after.body.leads).toHaveLength(0);
  });

  it('when nothing was erased, then a kept body is served without reading the job again, and the epoch at most once per bound', async () => {
    const jobId = await finishedJobWith(`kept-${randomBytes(6).toString('hex')}@cache.example`);
    expect((await read(jobId)).status).toBe(200);
    const sql = world.api.deps.db.sql;
    const query = sql.query.bind(sql) as (...args: unknown[]) => unknown;
    const seen: string[] = [];
    (sql as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string') seen.push(args[0]);
      return query(...args);
    };
    try {
      const started = Date.now();
      for (let i = 0; i < 20; i += 1) expect((await read(jobId)).status).toBe(200);
      const elapsed = Date.now() - started;
      const epochReads = seen.filter((text) => text.includes('erasure_epoch')).length;
      expect(epochReads).toBeLessThanOrEqual(Math.ceil(elapsed / ERASURE_EPOCH_MAX_AGE_MS) + 1);
      expect(seen.filter((text) => !text.includes('erasure_epoch') && !text.includes('authenticate_api_key'))).toEqual([]);
    } finally {
      (sql as unknown as { query: unknown }).query = query;
    }
  });
});

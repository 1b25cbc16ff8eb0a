import { readFileSync } from 'node:fs';
import path from 'node:path';
import { JOB_EVENT_OF, newId, TERMINAL_STATUSES } from '@leadgen/domain';
import { createDatabase, creditSummary, hashApiKey, type Database } from '../src';
import { buildAccount } from '../../../test/factories';

// The previous release's statements, run against the schema this code migrates to (the test database,
// migrated by the test setup): during a rolling deploy its pods keep sending them.
const statements = new Map(
  readFileSync(path.join(__dirname, 'fixtures/previous-release-statements.sql'), 'utf8')
    .split(/^-- name: /m)
    .slice(1)
    .map((block) => {
      const [name, ...sql] = block.split('\n');
      return [name!.trim(), sql.join('\n').trim()] as const;
    }),
);
const statement = (name: string): string => {
  const sql = statements.get(name);
  if (!sql) throw new Error(`no statement ${name} in the fixture`);
  return sql;
};

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
});
afterAll(() => db.$disconnect());

const request = { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 3 };

async function createJob(accountId: string, jobId: string, webhookUrl: string | null = null) {
  const { rows } = await db.sql.query(statement('create_job'), [
    accountId,
    `key-${jobId}`,
    'fp',
    jobId,
    24,
    10,
    newId.resultSet(),
    'google_maps',
    JSON.stringify({ ...request, webhookUrl }),
    3,
    webhookUrl,
    webhookUrl ? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' : null,
  ]);
  return rows[0];
}

describe('the previous release against this schema (expand/contract)', () => {
  it('when the fixture is read, then it holds every statement the previous release sends to a function', () => {
    expect([...statements.keys()].sort()).toEqual([
      'authenticate',
      'commit_page',
      'create_job',
      'read_job',
      'settle_job',
      'start_job',
      'withdraw_job',
    ]);
  });

  it('when the previous release authenticates, creates, starts, commits, settles and reads a job, then each statement answers as it expects', async () => {
    const { accountId, apiKey } = await buildAccount(db, { credits: 100 });
    const [key] = (await db.sql.query(statement('authenticate'), [hashApiKey(apiKey)])).rows;
    expect(key).toMatchObject({ o_id: accountId });

    const jobId = newId.job();
    expect(await createJob(accountId, jobId, 'https://hooks.example.com/leadgen')).toMatchObject({ o_outcome: 'created', o_job_id: jobId });
    expect((await db.sql.query(statement('start_job'), [jobId, 'sandbox'])).rows[0]).toMatchObject({
      id: jobId,
      status: 'running',
      provider: 'sandbox',
    });

    const page = JSON.stringify(['a', 'b'].map((k) => ({ k, d: { businessName: k } })));
    expect((await db.sql.query(statement('commit_page'), [jobId, page, 'next'])).rows[0]).toEqual({
      o_delivered_count: 2,
      o_requested_count: 3,
      o_needs_matches: false,
    });

    const [settled] = (await db.sql.query(statement('settle_job'), [jobId, 'PARTIAL', 'source_exhausted', 10, 2])).rows;
    expect(settled).toMatchObject({ id: jobId, status: 'PARTIAL', credits_charged: 10, delivered_count: 2 });
    expect(settled.webhook_deliveries).toHaveLength(1); // the job's own webhookUrl

    const [read] = (await db.sql.query(statement('read_job'), [jobId, accountId])).rows;
    expect(read).toMatchObject({ id: jobId, status: 'PARTIAL' });
    expect(JSON.parse(read.leads_json)).toEqual([{ businessName: 'a' }, { businessName: 'b' }]);
    expect(await creditSummary(db, accountId)).toEqual({ balance: 90, reserved: 0, available: 90 });
  });

  it('when the previous release withdraws a creation whose enqueue failed, then the job, its key and its reservation are gone', async () => {
    const { accountId } = await buildAccount(db, { credits: 100 });
    const jobId = newId.job();
    await createJob(accountId, jobId);
    expect((await db.sql.query(statement('withdraw_job'), [jobId])).rows[0]).toEqual({ withdrawn: 1 });
    expect(await creditSummary(db, accountId)).toEqual({ balance: 100, reserved: 0, available: 100 });
  });

  it('when the previous release creates and settles jobs beside fair release, then its jobs are released at once (it enqueues them) and its settlements release none (the sweep does)', async () => {
    const { accountId } = await buildAccount(db, { credits: 1000 });
    const held = newId.job();
    const first = newId.job();
    await createJob(accountId, first);
    // This release's create_job holds a job over the cap (1); the previous release's goes into the queue regardless.
    const { rows } = await db.sql.query(
      `SELECT o_released FROM create_job($1, $2, 'fp', $3, 24, 10, $4, 'google_maps', $5, 3, NULL, NULL, 1)`,
      [accountId, `key-${held}`, held, newId.resultSet(), JSON.stringify(request)],
    );
    expect(rows[0].o_released).toEqual([]);
    const second = newId.job();
    await createJob(accountId, second);
    const releasedAt = async (id: string) => (await db.sql.query('SELECT released_at FROM jobs WHERE id = $1', [id])).rows[0].released_at;
    expect(await releasedAt(second)).not.toBeNull();
    await db.sql.query(statement('settle_job'), [first, 'CANCELLED', 'cancelled_by_owner', 0, 0]);
    expect(await releasedAt(held)).toBeNull();
  });

  it('when the previous release settles a job with each terminal status, then its webhook event has the name packages/domain gives it', async () => {
    const { accountId } = await buildAccount(db, { credits: 1000 });
    for (const status of TERMINAL_STATUSES) {
      const jobId = newId.job();
      await createJob(accountId, jobId, 'https://hooks.example.com/leadgen');
      const [settled] = (await db.sql.query(statement('settle_job'), [jobId, status, null, 0, 0])).rows;
      const { rows } = await db.sql.query('SELECT event_type FROM webhook_deliveries WHERE id = ANY($1)', [settled.webhook_deliveries]);
      expect({ status, events: rows.map((row) => row.event_type) }).toEqual({ status, events: [JOB_EVENT_OF[status]] });
    }
  });
});

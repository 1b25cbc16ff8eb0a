import { addSuppressions, createDatabase, deleteAccount, type Database } from '../src';
import { buildAccount, buildDeliveredJobs, buildJob } from '../../../test/factories';

// An account's deletion goes in bounded batches (prisma/functions/purge_account_rows.sql, decision 043): many short
// transactions, then delete_account for what is left. These check that the batches take everything and count it right.
let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
});
afterAll(() => db.$disconnect());

const OWNED = ['jobs', 'account_deliveries', 'suppressions', 'suppression_counts', 'webhook_deliveries', 'credit_ledger', 'api_keys'];
async function rowsOf(accountId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of OWNED)
    counts[table] = (
      await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [accountId])
    ).rows[0]!.n;
  return counts;
}

describe('account deletion in batches', () => {
  it('when an account with many jobs, leads and deliveries is deleted 7 rows at a time, then all of it goes and the figures count all', async () => {
    const { accountId } = await buildAccount(db, { credits: 1_000 });
    const other = await buildAccount(db, { credits: 100 });
    const jobIds = await buildDeliveredJobs(db, accountId, 12, 5);
    await buildDeliveredJobs(db, other.accountId, 2, 3);
    await buildJob(db, { accountId, status: 'COMPLETE', maxResults: 4 });
    await db.sql.query(
      `INSERT INTO webhook_deliveries (account_id, url, job_id, event_type) SELECT $1, 'https://example.com/h', id, 'job.completed' FROM unnest($2::text[]) id`,
      [accountId, jobIds],
    );
    await db.sql.query(
      `INSERT INTO account_deliveries (account_id, source, dedup_key, job_id) SELECT $1, 'google_maps', encode(sha256(g::text::bytea), 'hex'), $2 FROM generate_series(1, 30) g`,
      [accountId, jobIds[0]],
    );
    await addSuppressions(
      db,
      accountId,
      Array.from({ length: 20 }, (_, i) => ({ kind: 'domain' as const, value: `s${i}.example` })),
    );

    const calls: number[] = [];
    const spy = db.sql.query.bind(db.sql);
    (db.sql as unknown as { query: unknown }).query = (text: string, values?: unknown[]) => {
      if (typeof text === 'string' && text.includes('purge_account_rows')) calls.push(1);
      return spy(text, values as never);
    };
    try {
      const deletion = await deleteAccount(db, accountId, { batch: 7 });
      expect(deletion).toMatchObject({ outcome: 'deleted', figures: { jobs: 13, leads: 12 * 5 + 4, apiKeys: 1 } });
    } finally {
      (db.sql as unknown as { query: unknown }).query = spy;
    }
    // 12 jobs of 6 rows each (5 leads + the job): one a call; the billed one; then 12 deliveries, 30 memories, 20 entries by 7s
    expect(calls.length).toBeGreaterThanOrEqual(12 + 1 + 2 + 5 + 3);
    expect(Object.values(await rowsOf(accountId)).every((n) => n === 0)).toBe(true);
    expect((await rowsOf(other.accountId)).jobs).toBe(2);
    const leadsLeft = await db.sql.query('SELECT 1 FROM leads WHERE job_id = ANY($1)', [jobIds]);
    expect(leadsLeft.rowCount).toBe(0);
  });

  it('when the account has an open job, then nothing is purged', async () => {
    const { accountId } = await buildAccount(db, { credits: 1_000 });
    await buildDeliveredJobs(db, accountId, 3, 2);
    await buildJob(db, { accountId, status: 'running' });
    expect(await deleteAccount(db, accountId, { batch: 2 })).toEqual({ outcome: 'open_jobs' });
    expect((await rowsOf(accountId)).jobs).toBe(4);
  });
});

import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import {
  addSuppressions,
  createAccountKey,
  createDatabase,
  creditSummary,
  deleteAccount,
  dropDatabase,
  migrate,
  type Database,
} from '../src';
import { scratchDatabaseUrls } from '../../../test/runtime-role';
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

  it('when the account has an open job, then nothing is purged, its ledger included', async () => {
    const { accountId } = await buildAccount(db, { credits: 1_000 });
    await buildDeliveredJobs(db, accountId, 3, 2);
    await buildJob(db, { accountId, status: 'running' });
    const ledger = (await rowsOf(accountId)).credit_ledger;
    expect(await deleteAccount(db, accountId, { batch: 2 })).toEqual({ outcome: 'open_jobs' });
    expect((await rowsOf(accountId)).jobs).toBe(4);
    expect((await rowsOf(accountId)).credit_ledger).toBe(ledger);
    expect((await db.sql.query('SELECT 1 FROM account_deletions WHERE account_id = $1', [accountId])).rowCount).toBe(0);
  });
});

// An account's ledger (80,000 rows for a customer's year) went with its row in delete_account's one statement, by the
// foreign key's cascade (0.3 s to 1.5 s at 1M leads, issue 39). It now goes in batches too, after the row.
describe('account deletion: the ledger in batches', () => {
  /** An account with a grant of 1,000 and `charges` charges of 1 credit each (its counters in step). */
  async function accountWithLedger(charges: number): Promise<string> {
    const { accountId } = await buildAccount(db, { credits: 1_000 });
    await db.sql.query(
      `WITH c AS (INSERT INTO credit_ledger (account_id, job_id, kind, amount) SELECT $1, 'job_' || $1 || g, 'charge', 1 FROM generate_series(1, $2::int) g)
       UPDATE accounts SET balance = balance - $2 WHERE id = $1`,
      [accountId, charges],
    );
    return accountId;
  }
  const ledgerRows = async (accountId: string) =>
    (await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1', [accountId])).rows[0]!.n;
  const accountRow = async (accountId: string) => (await db.sql.query('SELECT 1 FROM accounts WHERE id = $1', [accountId])).rowCount;

  it('when an account with 40 ledger rows is deleted 7 rows at a time, then no statement deletes more than 7 of them, none before the account row, and the figures are those before', async () => {
    const accountId = await accountWithLedger(40);
    const other = await accountWithLedger(3);
    // Each delete_account statement: the ledger rows it took, and whether the account row was there before it.
    const steps: Array<{ ledger: number; rowBefore: number | null }> = [];
    const spy = db.sql.query.bind(db.sql);
    (db.sql as unknown as { query: unknown }).query = async (text: string, values?: unknown[]) => {
      if (typeof text !== 'string' || !text.includes('delete_account')) return spy(text, values as never);
      const before = { ledger: await ledgerRows(accountId), row: await accountRow(accountId) };
      const result = await spy(text, values as never);
      steps.push({ ledger: before.ledger - (await ledgerRows(accountId)), rowBefore: before.row });
      return result;
    };
    try {
      expect(await deleteAccount(db, accountId, { batch: 7 })).toEqual({
        outcome: 'deleted',
        figures: { jobs: 0, leads: 0, apiKeys: 1, ledgerRows: 41, credits: { granted: 1_000, charged: 40, balance: 960 } },
      });
    } finally {
      (db.sql as unknown as { query: unknown }).query = spy;
    }
    expect(Math.max(...steps.map((s) => s.ledger))).toBeLessThanOrEqual(7);
    expect(steps.reduce((n, s) => n + s.ledger, 0)).toBe(41);
    // the statement that deleted the account row took no ledger row: the figures were taken first
    expect(steps.find((s) => s.rowBefore === 1)).toEqual({ ledger: 0, rowBefore: 1 });
    expect(steps.length).toBeGreaterThanOrEqual(1 + Math.ceil(41 / 7));
    expect(await ledgerRows(accountId)).toBe(0);
    expect((await db.sql.query('SELECT 1 FROM account_deletions WHERE account_id = $1', [accountId])).rowCount).toBe(0);
    expect(await ledgerRows(other)).toBe(4);
  });

  it('when a deletion stops after the account row and two batches, then its ledger stays append-only to all else, nothing adds to it, and the next deletion carries on with the figures taken at first', async () => {
    const accountId = await accountWithLedger(20);
    const other = await accountWithLedger(2);
    const steps: string[] = [];
    for (let i = 0; i < 3; i++)
      steps.push((await db.sql.query<{ o_outcome: string }>('SELECT * FROM delete_account($1, 5)', [accountId])).rows[0]!.o_outcome);
    expect(steps).toEqual(['ledger', 'ledger', 'ledger']);
    expect(await accountRow(accountId)).toBe(0);
    expect(await ledgerRows(accountId)).toBe(21 - 10);

    // the rows left are still refused to anyone but the deletion, and a live account's to it
    await expect(db.sql.query('DELETE FROM credit_ledger WHERE account_id = $1', [accountId])).rejects.toThrow();
    await expect(db.sql.query('SELECT delete_account_ledger($1, 5)', [other])).rejects.toThrow(/not being deleted/);
    // nothing adds to the ledger of the gone account (the check its foreign key made)
    await expect(
      db.sql.query("INSERT INTO credit_ledger (account_id, kind, amount) VALUES ($1, 'grant', 5)", [accountId]),
    ).rejects.toMatchObject({ code: '23503' });
    expect(await ledgerRows(accountId)).toBe(11);

    expect(await deleteAccount(db, accountId, { batch: 4 })).toEqual({
      outcome: 'deleted',
      figures: { jobs: 0, leads: 0, apiKeys: 1, ledgerRows: 21, credits: { granted: 1_000, charged: 20, balance: 980 } },
    });
    expect(await ledgerRows(accountId)).toBe(0);
    expect(await deleteAccount(db, accountId)).toEqual({ outcome: 'not_found' });
    expect(await ledgerRows(other)).toBe(3);
    expect(await creditSummary(db, other)).toMatchObject({ balance: 998 });
  });

  it('when an account with a test account is deleted, then the test account and its ledger go with it', async () => {
    const { accountId } = await buildAccount(db, { credits: 100 });
    expect(await createAccountKey(db, accountId, { name: 'sandbox', mode: 'test' }, 10)).toMatchObject({ outcome: 'created' });
    const { rows } = await db.sql.query<{ id: string }>('SELECT id FROM accounts WHERE live_account_id = $1', [accountId]);
    const testAccountId = rows[0]!.id;
    expect(await ledgerRows(testAccountId)).toBeGreaterThan(0);
    expect(await deleteAccount(db, accountId, { batch: 3 })).toMatchObject({ outcome: 'deleted' });
    expect(await accountRow(testAccountId)).toBe(0);
    expect(await ledgerRows(testAccountId)).toBe(0);
    expect((await db.sql.query('SELECT 1 FROM account_deletions WHERE account_id = ANY($1)', [[accountId, testAccountId]])).rowCount).toBe(
      0,
    );
  });
});

// A small account's deletion beside a big one must read what the small account holds, not the tables (issue 39). Each
// statement's best plan depends on the account (1,000 rows of one, 1,000,000 of another): a generic plan, which
// PostgreSQL's plan cache may switch a session's PL/pgSQL statements to after five runs, estimates every account at
// the average and reads the whole table (a Seq Scan of account_deliveries, or credit_ledger by its primary key).
describe('account deletion beside a big account, whatever plan the session caches', () => {
  const scratch = scratchDatabaseUrls(`${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_purge_${randomBytes(3).toString('hex')}`);
  afterAll(() => dropDatabase(scratch.ownerUrl));
  const TABLES = ['jobs', 'account_deliveries', 'suppressions', 'webhook_deliveries', 'credit_ledger'];

  it('when a session with generic plans deletes a 40-row account beside a 20,000-row one, then it reads hundreds of rows, not the tables', async () => {
    await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
    const owner = new Client({ connectionString: scratch.ownerUrl });
    const runtime = new Client({ connectionString: scratch.runtimeUrl });
    await owner.connect();
    await runtime.connect();
    try {
      for (const [id, n] of [
        ['acc_big', 20_000],
        ['acc_small', 40],
      ] as const) {
        await owner.query(`INSERT INTO accounts (id, name) VALUES ($1, $1)`, [id]);
        await owner.query(
          `INSERT INTO account_deliveries (account_id, source, dedup_key, job_id) SELECT $1, 'google_maps', encode(sha256(($1 || g)::bytea), 'hex'), 'job_gone' FROM generate_series(1, $2::int) g`,
          [id, n],
        );
        await owner.query(
          `INSERT INTO suppressions (account_id, kind, value) SELECT $1, 'domain', $1 || g || '.example' FROM generate_series(1, $2::int) g`,
          [id, n],
        );
        await owner.query(
          `INSERT INTO webhook_deliveries (account_id, url, event_type, status) SELECT $1, 'https://hooks.example/x', 'job.completed', 'succeeded' FROM generate_series(1, $2::int) g`,
          [id, n],
        );
        await owner.query(`INSERT INTO credit_ledger (account_id, kind, amount) SELECT $1, 'grant', 1 FROM generate_series(1, $2::int) g`, [
          id,
          n,
        ]);
        await owner.query(`UPDATE accounts SET balance = $2 WHERE id = $1`, [id, n]);
      }
      await owner.query(`ANALYZE ${TABLES.join(', ')}`);

      const read = async () => {
        await runtime.query('SELECT pg_stat_force_next_flush()');
        await runtime.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await runtime.query<{ relname: string; n: string }>(
          `SELECT t.relname, COALESCE(t.seq_tup_read, 0) + COALESCE((SELECT sum(i.idx_tup_read) FROM pg_stat_user_indexes i WHERE i.relid = t.relid), 0) AS n
           FROM pg_stat_user_tables t WHERE t.relname = ANY($1)`,
          [TABLES],
        );
        return Object.fromEntries(rows.map((r) => [r.relname, Number(r.n)]));
      };
      await runtime.query('SET plan_cache_mode = force_generic_plan');
      const before = await read();
      for (;;) {
        const { rows } = await runtime.query<{ o_rows: string }>('SELECT * FROM purge_account_rows($1, 5000)', ['acc_small']);
        if (Number(rows[0]!.o_rows) === 0) break;
      }
      const outcomes: string[] = [];
      for (;;) {
        const { rows } = await runtime.query<{ o_outcome: string }>('SELECT * FROM delete_account($1, 5000)', ['acc_small']);
        outcomes.push(rows[0]!.o_outcome);
        if (rows[0]!.o_outcome !== 'ledger') break;
      }
      expect(outcomes).toEqual(['ledger', 'deleted']);
      const after = await read();
      const rowsRead = Object.fromEntries(TABLES.map((t) => [t, after[t]! - before[t]!]));
      // 40 rows of each, found through an index and read again by the TID scan or the check that the table is empty
      for (const table of TABLES) expect({ table, read: rowsRead[table] }).toEqual({ table, read: expect.any(Number) });
      expect(Math.max(...Object.values(rowsRead))).toBeLessThan(1_000);
      const { rows: big } = await owner.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM account_deliveries WHERE account_id = 'acc_big'`,
      );
      expect(big[0]!.n).toBe(20_000);
    } finally {
      await runtime.end();
      await owner.end();
    }
  }, 120_000);
});

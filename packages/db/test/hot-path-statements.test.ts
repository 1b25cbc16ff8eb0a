import { newId, reservationFor, type GenerationRequest, type Lead } from '@leadgen/domain';
import {
  commitPage,
  createDatabase,
  insertJob,
  withdrawJob,
  creditSummary,
  findCreditDiscrepancies,
  ledgerCreditSummary,
  listLeads,
  recordSettlement,
  startJob,
  type Database,
  type PageLead,
} from '../src';
import { buildAccount } from '../../../test/factories';

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 6 });
});
afterAll(() => db.$disconnect());

const request = (maxResults: number): GenerationRequest => ({ source: 'google_maps', category: 'dentist', state: 'US', maxResults });

const newAccount = async (credits: number) => (await buildAccount(db, { credits, name: 'hot-path' })).accountId;

async function create(accountId: string, maxResults: number, key = newId.job()) {
  return insertJob(db, {
    accountId,
    idempotencyKey: key,
    fingerprint: `fp-${maxResults}`,
    idempotencyTtlHours: 1,
    jobId: newId.job(),
    resultSetId: newId.resultSet(),
    request: request(maxResults),
    creditsReserved: reservationFor('google_maps', maxResults),
    share: 0,
  });
}

const page = (keys: string[]): PageLead[] => keys.map((k) => ({ dedupKey: k, lead: { businessName: k } as unknown as Lead }));

describe('credit counters beside the ledger', () => {
  it('when jobs are created, refused, settled and cancelled, then the counters always equal the ledger sums', async () => {
    const accountId = await newAccount(200);
    const a = await create(accountId, 25); // reserves 50
    const b = await create(accountId, 50); // reserves 100
    const refused = await create(accountId, 40); // 80 > 50 available
    expect(refused).toEqual({ kind: 'insufficient_credits', available: 50 });
    expect(await creditSummary(db, accountId)).toEqual({ balance: 200, reserved: 150, available: 50 });

    if (a.kind !== 'created' || b.kind !== 'created') throw new Error('jobs not created');
    await startJob(db, a.jobId, 'sandbox');
    await commitPage(db, a.jobId, page(['p1', 'p2', 'p3']), 'c1');
    await recordSettlement(db, a.jobId, { kind: 'finished' }); // PARTIAL 3 leads: 10-credit minimum
    await recordSettlement(db, b.jobId, { kind: 'cancelled' }); // nothing delivered: free
    expect(await creditSummary(db, accountId)).toEqual({ balance: 190, reserved: 0, available: 190 });
    expect(await ledgerCreditSummary(db, accountId)).toEqual(await creditSummary(db, accountId));
    expect((await findCreditDiscrepancies(db)).filter((d) => d.accountId === accountId)).toEqual([]);
  });

  it('when something bypasses the code and overdraws an account, then PostgreSQL refuses it', async () => {
    const accountId = await newAccount(10);
    await expect(db.sql.query('UPDATE accounts SET reserved = 11 WHERE id = $1', [accountId])).rejects.toMatchObject({ code: '23514' });
  });

  it("when a counter is changed behind the ledger's back, then the discrepancy check names the account", async () => {
    const accountId = await newAccount(100);
    await db.sql.query('UPDATE accounts SET balance = balance + 5 WHERE id = $1', [accountId]);
    const found = (await findCreditDiscrepancies(db)).filter((d) => d.accountId === accountId);
    expect(found).toEqual([{ accountId, counters: { balance: 105, reserved: 0 }, ledger: { balance: 100, reserved: 0 } }]);
    await db.sql.query('UPDATE accounts SET balance = balance - 5 WHERE id = $1', [accountId]);
  });

  it('when 30 jobs race for credits that cover 10, then exactly 10 are created and nothing is overdrawn', async () => {
    const accountId = await newAccount(100); // 10 jobs of 5 leads at the 10-credit minimum
    const results = await Promise.all(Array.from({ length: 30 }, () => create(accountId, 5)));
    expect(results.filter((r) => r.kind === 'created')).toHaveLength(10);
    expect(results.filter((r) => r.kind === 'insufficient_credits')).toHaveLength(20);
    expect(await creditSummary(db, accountId)).toEqual({ balance: 100, reserved: 100, available: 0 });
    expect(await ledgerCreditSummary(db, accountId)).toEqual(await creditSummary(db, accountId));
  });
});

describe("idempotency through the key's primary key", () => {
  it('when the creation is rolled back by its enqueue, then no job, no reservation and the key stays free', async () => {
    const accountId = await newAccount(100);
    const key = `rollback-${newId.job()}`;
    const jobId = newId.job();
    const inserted = await insertJob(db, {
      accountId,
      idempotencyKey: key,
      fingerprint: 'x',
      idempotencyTtlHours: 1,
      jobId,
      resultSetId: newId.resultSet(),
      request: request(5),
      creditsReserved: 10,
      share: 0,
    });
    expect(inserted.kind).toBe('created');
    // What @leadgen/commands' createJob does when the queue refuses the job (packages/commands/test).
    await withdrawJob(db, jobId);
    expect(await creditSummary(db, accountId)).toEqual({ balance: 100, reserved: 0, available: 100 });
    expect(await ledgerCreditSummary(db, accountId)).toEqual(await creditSummary(db, accountId));
    expect((await db.sql.query('SELECT 1 FROM jobs WHERE account_id = $1', [accountId])).rowCount).toBe(0);
    // The ledger keeps the reservation and its release: nothing is ever erased from it.
    const { rows } = await db.sql.query('SELECT kind::text, amount FROM credit_ledger WHERE job_id = $1 ORDER BY id', [jobId]);
    expect(rows).toEqual([
      { kind: 'reserve', amount: 10 },
      { kind: 'release', amount: 10 },
    ]);
    expect((await create(accountId, 5, key)).kind).toBe('created');
  });

  it('when 20 creations with one key race, then one job is created and the others read it as bound', async () => {
    const accountId = await newAccount(1_000);
    const key = `race-${newId.job()}`;
    const results = await Promise.all(Array.from({ length: 20 }, () => create(accountId, 5, key)));
    const created = results.filter((r) => r.kind === 'created');
    expect(created).toHaveLength(1);
    const jobId = created[0]!.kind === 'created' ? created[0]!.jobId : '';
    for (const r of results) if (r.kind === 'bound') expect(r.jobId).toBe(jobId);
    expect(results.filter((r) => r.kind === 'bound')).toHaveLength(19);
    expect(await creditSummary(db, accountId)).toMatchObject({ reserved: 10 });
  });
});

describe('page commits', () => {
  it('when pages overlap and workers commit the same job at once, then each lead is stored once, counted once, numbered without gaps', async () => {
    const accountId = await newAccount(100_000);
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    // The race needs the commits to meet at the row lock: tried on many jobs, so it is met every run.
    for (let round = 0; round < 15; round += 1) {
      const created = await create(accountId, 12);
      if (created.kind !== 'created') throw new Error('not created');
      const id = created.jobId;
      await startJob(db, id, 'sandbox');
      await Promise.all([
        commitPage(db, id, page(keys.slice(0, 8)), 'a'),
        commitPage(db, id, page(keys.slice(4, 12)), 'b'),
        commitPage(db, id, page([...keys.slice(2, 6), 'k2', 'k2']), 'c'),
      ]);
      const last = await commitPage(db, id, page(keys.slice(8, 20)), 'd');
      expect(last).toEqual({ kind: 'committed', deliveredCount: 12, requestedCount: 12 });
      const { rows } = await db.sql.query<{ position: number; dedup_key: string }>(
        'SELECT position, dedup_key FROM leads WHERE job_id = $1 ORDER BY position',
        [id],
      );
      expect(rows.map((r) => r.position)).toEqual(Array.from({ length: 12 }, (_, i) => i));
      expect(new Set(rows.map((r) => r.dedup_key)).size).toBe(12);
    }
  });

  it('when the job is terminal, then a page commit writes nothing and says stopped', async () => {
    const accountId = await newAccount(1_000);
    const created = await create(accountId, 5);
    if (created.kind !== 'created') throw new Error('not created');
    await recordSettlement(db, created.jobId, { kind: 'cancelled' });
    expect(await commitPage(db, created.jobId, page(['late']), 'x')).toEqual({ kind: 'stopped' });
    expect(await listLeads(db, created.jobId)).toEqual([]);
  });

  it('when a settlement was decided from a stale count, then it is decided again from the committed one', async () => {
    const accountId = await newAccount(1_000);
    const created = await create(accountId, 10);
    if (created.kind !== 'created') throw new Error('not created');
    const id = created.jobId;
    await commitPage(db, id, page(['a', 'b', 'c']), 'x');
    const settled = await recordSettlement(db, id, { kind: 'finished' }, { source: 'google_maps', requestedCount: 10, deliveredCount: 1 });
    expect(settled?.settled).toBe(true);
    expect(settled?.job).toMatchObject({ status: 'PARTIAL', deliveredCount: 3, creditsCharged: 10 });
    const again = await recordSettlement(
      db,
      id,
      { kind: 'error', reason: 'timeout' },
      { source: 'google_maps', requestedCount: 10, deliveredCount: 3 },
    );
    expect(again).toMatchObject({ settled: false, job: { status: 'PARTIAL' } });
  });
});

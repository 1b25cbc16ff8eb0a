import { newId, reservationFor, type GenerationRequest, type Lead } from '@leadgen/domain';
import {
  commitPage,
  createDatabase,
  creditSummary,
  findJob,
  insertJob,
  jsonbArray,
  ledgerCreditSummary,
  listLeads,
  openJob,
  recordSettlement,
  startJob,
  type Database,
  type PageLead,
} from '../src';
import { buildAccount } from '../../../test/factories';

// Decision 037's hot path: a job's start deferred to its first commit and its settlement made by its last, each in
// the same transaction as the slice (prisma/functions/open_job.sql, commit_slice.sql).
let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 4 });
});
afterAll(() => db.$disconnect());

const request = (maxResults: number): GenerationRequest => ({ source: 'google_maps', category: 'dentist', state: 'US', maxResults });
const page = (keys: string[]): PageLead[] => keys.map((k) => ({ dedupKey: k, lead: { businessName: k } as unknown as Lead }));

async function create(maxResults: number) {
  const { accountId } = await buildAccount(db, { credits: 1_000, name: 'commit-slice' });
  const created = await insertJob(db, {
    accountId,
    idempotencyKey: newId.job(),
    fingerprint: `fp-${maxResults}`,
    idempotencyTtlHours: 1,
    jobId: newId.job(),
    resultSetId: newId.resultSet(),
    request: request(maxResults),
    creditsReserved: reservationFor('google_maps', maxResults),
    share: 0,
  });
  if (created.kind !== 'created') throw new Error('job not created');
  return { accountId, jobId: created.jobId };
}

describe('a job opened, committed and settled in its slices', () => {
  it('when a worker takes a job for the first time, then it reads the row and writes nothing; taken again, it writes the start at once', async () => {
    const { jobId } = await create(5);
    const opened = await openJob(db, jobId, 'sandbox', false);
    expect(opened).toMatchObject({ kind: 'deferred', job: { status: 'queued', startedAt: null, provider: null } });
    expect(await findJob(db, jobId)).toMatchObject({ status: 'queued', startedAt: null });
    const again = await openJob(db, jobId, 'sandbox', true);
    expect(again).toMatchObject({ kind: 'started', job: { status: 'running', provider: 'sandbox' } });
    expect(again?.job.startedAt).toBeInstanceOf(Date);
  });

  it('when a deferred start is written on its own after its window, then it records the time the worker took the job', async () => {
    const { jobId } = await create(5);
    const takenAt = new Date(Date.now() - 1_500);
    expect(await startJob(db, jobId, 'sandbox', takenAt)).toMatchObject({ kind: 'started', job: { status: 'running' } });
    expect((await findJob(db, jobId))?.startedAt?.getTime()).toBe(takenAt.getTime());
  });

  it('when the one slice of a job completes it, then its start, leads and settlement are one commit and the ledger agrees', async () => {
    const { accountId, jobId } = await create(3);
    const startedAt = new Date(Date.now() - 5_000);
    const committed = await commitPage(
      db,
      jobId,
      page(['a', 'b', 'c']),
      'end',
      {},
      {
        start: { provider: 'sandbox', startedAt },
        settle: { source: 'google_maps', requestedCount: 3 },
      },
    );
    expect(committed).toMatchObject({ kind: 'committed', deliveredCount: 3, settlement: { settled: true, job: { status: 'COMPLETE' } } });
    const job = await findJob(db, jobId);
    expect(job).toMatchObject({ status: 'COMPLETE', provider: 'sandbox', deliveredCount: 3, creditsCharged: 10 });
    expect(job?.startedAt?.getTime()).toBe(startedAt.getTime());
    expect((await listLeads(db, jobId)).map((l) => (l as { businessName: string }).businessName)).toEqual(['a', 'b', 'c']);
    expect(await creditSummary(db, accountId)).toEqual({ balance: 990, reserved: 0, available: 990 });
    expect(await ledgerCreditSummary(db, accountId)).toEqual(await creditSummary(db, accountId));
    // settled once: a second settlement (a late worker) changes nothing
    expect(await recordSettlement(db, jobId, { kind: 'finished' })).toMatchObject({ settled: false });
    expect(await ledgerCreditSummary(db, accountId)).toEqual({ balance: 990, reserved: 0, available: 990 });
  });

  it('when a slice that would complete a job has a lead skipped as already delivered, then nothing is settled and the job goes on', async () => {
    const { jobId } = await create(3);
    await commitPage(db, jobId, page(['a']), 'p1', {}, { start: { provider: 'sandbox', startedAt: new Date() } });
    expect(await findJob(db, jobId)).toMatchObject({ status: 'running', provider: 'sandbox', deliveredCount: 1 });
    const committed = await commitPage(db, jobId, page(['a', 'b']), 'p2', {}, { settle: { source: 'google_maps', requestedCount: 3 } });
    expect(committed).toEqual({ kind: 'committed', deliveredCount: 2, requestedCount: 3 });
    expect(await findJob(db, jobId)).toMatchObject({ status: 'running', deliveredCount: 2, creditsCharged: null });
  });

  it('when the job was cancelled before its first commit, then the merged commit writes nothing', async () => {
    const { jobId } = await create(2);
    await recordSettlement(db, jobId, { kind: 'cancelled' });
    const committed = await commitPage(
      db,
      jobId,
      page(['a', 'b']),
      'x',
      {},
      {
        start: { provider: 'sandbox', startedAt: new Date() },
        settle: { source: 'google_maps', requestedCount: 2 },
      },
    );
    expect(committed).toEqual({ kind: 'stopped' });
    expect(await findJob(db, jobId)).toMatchObject({ status: 'CANCELLED', deliveredCount: 0, provider: null });
    expect(await openJob(db, jobId, 'sandbox', false)).toMatchObject({ kind: 'terminal' });
  });

  it('when leads hold text past ASCII, quotes, backslashes and line breaks, then they are stored as sent (the items go as binary jsonb)', async () => {
    const { jobId } = await create(3);
    const texts = ['Café “Zoë” – 10:00 – 18:00', 'Line\nbreak \\ back"slash\t', '東京 🦷 dentist\u2028'];
    const leads: PageLead[] = texts.map((text, i) => ({
      dedupKey: `k${i}\u00e9`,
      lead: { businessName: text, n: i, x: null } as unknown as Lead,
    }));
    expect(await commitPage(db, jobId, leads, 'c1')).toMatchObject({ kind: 'committed', deliveredCount: 3 });
    expect(await listLeads(db, jobId)).toEqual(leads.map((l) => l.lead));
    const { rows } = await db.sql.query<{ dedup_key: string }>('SELECT dedup_key FROM leads WHERE job_id = $1 ORDER BY position', [jobId]);
    expect(rows.map((r) => r.dedup_key)).toEqual(['k0é', 'k1é', 'k2é']);
  });

  it('when a page is framed as binary jsonb, then it is the version byte and the JSON array of its items', () => {
    const items = [{ a: 'é–' }, { b: [1, null] }];
    const framed = jsonbArray(items);
    expect(framed[0]).toBe(1);
    expect(JSON.parse(framed.subarray(1).toString('utf8'))).toEqual(items);
    expect(framed.subarray(1).toString('utf8')).toBe(JSON.stringify(items));
    expect(jsonbArray([]).subarray(1).toString('utf8')).toBe('[]');
  });
});

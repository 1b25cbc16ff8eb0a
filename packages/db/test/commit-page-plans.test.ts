import { newId, reservationFor, type Lead } from '@leadgen/domain';
import { commitPage, createDatabase, insertJob, startJob, type Database, type PageLead } from '../src';
import { buildAccount } from '../../../test/factories';

// One connection, as a worker's: PL/pgSQL keeps a statement's plan for the connection's life, so the
// page commits below run under plans made while the account's suppression list was one entry long.
let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 1 });
});
afterAll(() => db.$disconnect());

const GROWN_TO = 400_000;

async function runningJob(accountId: string, maxResults: number): Promise<string> {
  const created = await insertJob(db, {
    accountId,
    idempotencyKey: newId.job(),
    fingerprint: 'fp-plans',
    idempotencyTtlHours: 1,
    jobId: newId.job(),
    resultSetId: newId.resultSet(),
    request: { source: 'google_maps', category: 'dentist', state: 'US', maxResults },
    creditsReserved: reservationFor('google_maps', maxResults),
    share: 0,
  });
  if (created.kind !== 'created') throw new Error(`job not created: ${created.kind}`);
  await startJob(db, created.jobId, 'sandbox');
  return created.jobId;
}

const page = (prefix: string, n: number): PageLead[] =>
  Array.from({ length: n }, (_, i) => ({
    dedupKey: `${prefix}-${i}`,
    lead: { businessName: `${prefix} ${i}` } as unknown as Lead,
    matches: [
      { kind: 'email', value: `owner${i}@${prefix}.example` },
      { kind: 'domain', value: `${prefix}-${i}.example` },
    ],
  }));

describe('commit_page plans follow the data (issue 31, finding 4)', () => {
  it("when an account's suppression list grows from one entry to 400k on a worker's connection, then a page commit still probes it, not scans it", async () => {
    const { accountId } = await buildAccount(db, { credits: 100_000, name: 'plans' });
    await db.sql.query(`INSERT INTO suppressions (account_id, kind, value) VALUES ($1, 'email', 'first@small.example')`, [accountId]);
    // Plans made while the list is small (more than five calls: past any custom-plan phase).
    const job = await runningJob(accountId, 1_000);
    for (let p = 0; p < 8; p += 1) expect((await commitPage(db, job, page(`small${p}`, 20), `c${p}`)).kind).toBe('committed');

    await db.sql.query(
      `INSERT INTO suppressions (account_id, kind, value)
       SELECT $1, 'email', 'grown' || g || '@list.example' FROM generate_series(1, ${GROWN_TO}) g`,
      [accountId],
    );
    // One lead of the next page is on the grown list: it is still passed over.
    await db.sql.query(`INSERT INTO suppressions (account_id, kind, value) VALUES ($1, 'email', 'owner3@grown.example')`, [accountId]);
    const timings: number[] = [];
    for (let p = 0; p < 3; p += 1) {
      const started = performance.now();
      const committed = await commitPage(db, job, page(p === 0 ? 'grown' : `grown${p}`, 20), `g${p}`);
      timings.push(performance.now() - started);
      expect(committed.kind).toBe('committed');
    }
    const { rows } = await db.sql.query<{ skipped_suppressed: number }>('SELECT skipped_suppressed FROM jobs WHERE id = $1', [job]);
    expect(rows[0]!.skipped_suppressed).toBe(1);
    // A scan of 400k entries per lead takes seconds; probes take milliseconds (loaded CI included).
    expect(Math.max(...timings)).toBeLessThan(400);
  }, 120_000);
});

import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import {
  commitPage,
  createDatabase,
  dropDatabase,
  findBatch,
  findJob,
  migrate,
  MIGRATIONS_DIR,
  readMigrations,
  requestBatchCancel,
  recordSettlement,
  startJob,
  type Database,
  type PageLead,
} from '../src';
import { buildAccount, buildBatch, buildLead } from '../../../test/factories';

// A batch's claims (batch_deliveries, docs/decisions/021-batches.md): a lead at most once per batch, kept as the
// key's SHA-256 (a LinkedIn lead's key is the person's profile URL), and gone once the batch is terminal.

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 8 });
});
afterAll(() => db.$disconnect());

const sha256 = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
const profile = (n: number) => `https://www.linkedin.com/in/person-${n}`;
const page = (ns: number[]): PageLead[] => ns.map((n) => ({ dedupKey: profile(n), lead: buildLead('linkedin', n) }));

/** A running batch of `sizes.length` LinkedIn children (maxResults each), every child started. */
async function runningBatch(sizes: number[], database: Database = db) {
  const { accountId } = await buildAccount(database, { credits: 100_000 });
  const requests = sizes.map((maxResults, i) => ({ source: 'linkedin' as const, category: 'cto', city: `City ${i}`, maxResults }));
  const { batchId, jobIds } = await buildBatch(database, { accountId, requests });
  for (const jobId of jobIds) expect((await startJob(database, jobId, 'sandbox'))?.kind).toBe('started');
  return { accountId, batchId, jobIds };
}

async function claims(batchId: string) {
  const { rows } = await db.sql.query<{ dedup_key: string; job_id: string }>(
    'SELECT dedup_key, job_id FROM batch_deliveries WHERE batch_id = $1 ORDER BY dedup_key',
    [batchId],
  );
  return rows;
}

async function leadKeys(jobId: string): Promise<string[]> {
  const { rows } = await db.sql.query<{ dedup_key: string }>('SELECT dedup_key FROM leads WHERE job_id = $1 ORDER BY position', [jobId]);
  return rows.map((r) => r.dedup_key);
}

async function settle(jobId: string, outcome: Parameters<typeof recordSettlement>[2] = { kind: 'finished' }) {
  const settled = await recordSettlement(db, jobId, outcome);
  expect(settled?.settled).toBe(true);
}

describe('a batch’s claims', () => {
  it('when children deliver LinkedIn leads, then each claim is the key’s SHA-256, the digest account_deliveries keeps, and no profile URL is stored', async () => {
    const { accountId, batchId, jobIds } = await runningBatch([10, 10]);
    await commitPage(db, jobIds[0]!, page([1, 2, 3]), 'c1');
    await commitPage(db, jobIds[1]!, page([3, 4]), 'c1');

    expect(await leadKeys(jobIds[0]!)).toEqual([profile(1), profile(2), profile(3)]);
    expect(await leadKeys(jobIds[1]!)).toEqual([profile(4)]);
    expect((await findJob(db, jobIds[1]!))?.skippedAlreadyDelivered).toBe(1);
    const expected = [
      { dedup_key: sha256(profile(1)), job_id: jobIds[0] },
      { dedup_key: sha256(profile(2)), job_id: jobIds[0] },
      { dedup_key: sha256(profile(3)), job_id: jobIds[0] },
      { dedup_key: sha256(profile(4)), job_id: jobIds[1] },
    ].sort((a, b) => a.dedup_key.localeCompare(b.dedup_key));
    expect(await claims(batchId)).toEqual(expected);
    // Both memories hash alike: the account's memory holds the same four digests.
    const { rows } = await db.sql.query<{ dedup_key: string }>(
      'SELECT dedup_key FROM account_deliveries WHERE account_id = $1 ORDER BY dedup_key',
      [accountId],
    );
    expect(rows.map((r) => r.dedup_key)).toEqual(expected.map((c) => c.dedup_key));
    const { rows: raw } = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM batch_deliveries WHERE dedup_key LIKE '%linkedin%'`,
    );
    expect(raw[0]!.n).toBe(0);
  });

  it('when two children race for one key, then the second waits for the first: it delivers the key if the first rolls back, and passes over it if the first commits', async () => {
    const { batchId, jobIds } = await runningBatch([10, 10]);
    const [first, second] = jobIds as [string, string];
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      const items = (ns: number[]) => JSON.stringify(page(ns).map((p) => ({ k: p.dedupKey, d: p.lead })));

      // The first child's page claims key 7 and rolls back: the second, waiting on that claim, gets it.
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM commit_page($1, $2, $3, 0, $4)', [first, items([7]), 'c1', '{}']);
      let done = false;
      const racing = commitPage(db, second, page([7, 8]), 'c1').finally(() => (done = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(done).toBe(false);
      await holder.query('ROLLBACK');
      expect(await racing).toMatchObject({ kind: 'committed', deliveredCount: 2 });
      expect(await leadKeys(second)).toEqual([profile(7), profile(8)]);

      // Now the first races the second for key 9 and commits: the second passes over it.
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM commit_page($1, $2, $3, 0, $4)', [first, items([7, 9]), 'c2', '{}']);
      done = false;
      const losing = commitPage(db, second, page([9, 10]), 'c2').finally(() => (done = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(done).toBe(false);
      await holder.query('COMMIT');
      expect(await losing).toMatchObject({ kind: 'committed', deliveredCount: 3 });
    } finally {
      await holder.end();
    }
    expect(await leadKeys(first)).toEqual([profile(9)]);
    expect(await leadKeys(second)).toEqual([profile(7), profile(8), profile(10)]);
    expect((await findJob(db, first))?.skippedAlreadyDelivered).toBe(1);
    expect((await findJob(db, second))?.skippedAlreadyDelivered).toBe(1);
    expect((await claims(batchId)).map((c) => c.dedup_key).sort()).toEqual([7, 8, 9, 10].map((n) => sha256(profile(n))).sort());
  });

  it('when two children commit overlapping pages at once, many times, then every key is delivered once in the batch', async () => {
    const { batchId, jobIds } = await runningBatch([100, 100]);
    for (let round = 0; round < 10; round += 1) {
      const keys = Array.from({ length: 8 }, (_, i) => round * 6 + i); // each page overlaps the last round's too
      await Promise.all([
        commitPage(db, jobIds[0]!, page(keys), `a${round}`),
        commitPage(db, jobIds[1]!, page([...keys].reverse()), `b${round}`),
      ]);
    }
    const delivered = [...(await leadKeys(jobIds[0]!)), ...(await leadKeys(jobIds[1]!))];
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(delivered).toHaveLength(9 * 6 + 8);
    expect((await claims(batchId)).map((c) => c.dedup_key).sort()).toEqual(delivered.map(sha256).sort());
  });

  it('when a child claims more of a page than it was missing, then it gives back the rest, which another child delivers', async () => {
    const { batchId, jobIds } = await runningBatch([2, 10]);
    expect(await commitPage(db, jobIds[0]!, page([1, 2, 3, 4]), 'c1')).toMatchObject({ deliveredCount: 2 });
    expect((await claims(batchId)).map((c) => c.dedup_key).sort()).toEqual([sha256(profile(1)), sha256(profile(2))].sort());
    await commitPage(db, jobIds[1]!, page([1, 2, 3, 4]), 'c1');
    expect(await leadKeys(jobIds[1]!)).toEqual([profile(3), profile(4)]);
  });

  it('when the last child settles, then the batch is terminal and keeps no claims; until then they stay', async () => {
    const { batchId, jobIds } = await runningBatch([3, 3, 3]);
    await commitPage(db, jobIds[0]!, page([1, 2, 3]), 'c1');
    await commitPage(db, jobIds[1]!, page([2, 3, 4, 5]), 'c1');
    await settle(jobIds[0]!);
    await settle(jobIds[1]!, { kind: 'error', reason: 'provider_error' });
    expect(await claims(batchId)).toHaveLength(5);
    expect((await findBatch(db, batchId, null))?.status).toBe('running');

    await settle(jobIds[2]!);
    expect((await findBatch(db, batchId, null))?.status).toBe('PARTIAL');
    expect(await claims(batchId)).toEqual([]);
    // The leads stay: only the memory that kept children apart goes.
    expect([...(await leadKeys(jobIds[0]!)), ...(await leadKeys(jobIds[1]!))]).toHaveLength(5);
  });

  it('when a batch is cancelled, then its claims go with the settlement of its last child, and a late page of a cancelled child writes nothing', async () => {
    const { batchId, jobIds } = await runningBatch([10, 10]);
    await commitPage(db, jobIds[0]!, page([1, 2]), 'c1');
    await commitPage(db, jobIds[1]!, page([2, 3]), 'c1');
    const cancel = await requestBatchCancel(db, batchId, null);
    expect(cancel?.openChildren).toHaveLength(2);

    await settle(jobIds[1]!, { kind: 'cancelled' });
    // The other child's worker has not heard yet: its next page still claims, and the batch still runs.
    await commitPage(db, jobIds[0]!, page([3, 4]), 'c2');
    expect(await claims(batchId)).toHaveLength(4);
    await settle(jobIds[0]!, { kind: 'cancelled' });
    expect((await findBatch(db, batchId, null))?.status).toBe('CANCELLED');
    expect(await claims(batchId)).toEqual([]);

    // A worker that still holds a cancelled child: its page commit finds the job terminal and claims nothing.
    expect(await commitPage(db, jobIds[0]!, page([5, 6]), 'c3')).toEqual({ kind: 'stopped' });
    expect(await claims(batchId)).toEqual([]);
  });

  it('when any code tries to store a raw key as a claim, then the table refuses it', async () => {
    const { batchId, jobIds } = await runningBatch([5]);
    await expect(
      db.sql.query(`INSERT INTO batch_deliveries (batch_id, source, dedup_key, job_id) VALUES ($1, 'linkedin', $2, $3)`, [
        batchId,
        profile(1),
        jobIds[0],
      ]),
    ).rejects.toThrow(/batch_deliveries_dedup_key_is_sha256/);
  });
});

describe('the account’s memory of delivered leads (account_deliveries)', () => {
  it('when any code tries to store a raw key, then the table refuses it (20261126150000_account_deliveries_sha256_check)', async () => {
    const { accountId } = await buildAccount(db);
    await expect(
      db.sql.query(`INSERT INTO account_deliveries (account_id, source, dedup_key, job_id) VALUES ($1, 'linkedin', $2, 'job_raw')`, [
        accountId,
        profile(1),
      ]),
    ).rejects.toThrow(/account_deliveries_dedup_key_is_sha256/);
  });
});

describe('the migration to digests (20261126110000_batch_deliveries_pseudonymous)', () => {
  const url = new URL(process.env.DATABASE_OWNER_URL!);
  url.pathname = `/leadgen_claims_${randomBytes(4).toString('hex')}`;
  afterAll(() => dropDatabase(url.toString()), 60_000);

  it('when a database holds raw claims, then a running batch’s are rewritten as digests and a terminal batch’s are deleted', async () => {
    const migrations = readMigrations();
    const at = migrations.findIndex((m) => m.name === '20261126110000_batch_deliveries_pseudonymous');
    expect(at).toBeGreaterThan(0);
    const earlier = mkdtempSync(path.join(tmpdir(), 'leadgen-migrations-'));
    // Every other migration: the function files are today's, and they need today's tables (credit_stripes, a later migration).
    for (const migration of migrations.filter((m) => m.name !== '20261126110000_batch_deliveries_pseudonymous'))
      cpSync(path.join(MIGRATIONS_DIR, migration.name), path.join(earlier, migration.name), { recursive: true });
    await migrate(url.toString(), { migrationsDir: earlier });

    const old = createDatabase(url.toString(), { poolSize: 2 });
    try {
      const running = await runningBatch([5, 5], old);
      const finished = await runningBatch([5], old);
      expect((await recordSettlement(old, finished.jobIds[0]!, { kind: 'finished' }))?.settled).toBe(true);
      // As the previous release left them: raw keys, and a terminal batch's claims kept.
      for (const batch of [running, finished])
        for (const n of [1, 2])
          await old.sql.query(`INSERT INTO batch_deliveries (batch_id, source, dedup_key, job_id) VALUES ($1, 'linkedin', $2, $3)`, [
            batch.batchId,
            profile(n),
            batch.jobIds[0],
          ]);

      expect((await migrate(url.toString())).applied).toContain('20261126110000_batch_deliveries_pseudonymous');
      const { rows } = await old.sql.query<{ batch_id: string; dedup_key: string }>(
        'SELECT batch_id, dedup_key FROM batch_deliveries ORDER BY dedup_key',
      );
      expect(rows).toEqual([sha256(profile(1)), sha256(profile(2))].sort().map((dedup_key) => ({ batch_id: running.batchId, dedup_key })));
      // The running batch's children go on claiming the same digests: a key claimed before the migration stays claimed.
      await commitPage(old, running.jobIds[1]!, page([1, 3]), 'c1');
      const { rows: leads } = await old.sql.query<{ dedup_key: string }>('SELECT dedup_key FROM leads WHERE job_id = $1', [
        running.jobIds[1],
      ]);
      expect(leads.map((l) => l.dedup_key)).toEqual([profile(3)]);
    } finally {
      await old.$disconnect();
    }
  });
});

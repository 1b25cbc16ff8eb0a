import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import {
  commitPage,
  copyResultSetLeads,
  createDatabase,
  deleteAccount,
  dropDatabase,
  ensureLeadPartitions,
  eraseSubject,
  expireLeads,
  listLeads,
  migrate,
  migrateBefore,
  pageResultSet,
  readJobView,
  readMigrations,
  type Database,
} from '../src';
import { scratchDatabaseUrls } from '../../../test/runtime-role';
import { buildAccount, buildJob, buildLead } from '../../../test/factories';

// Leads partitioned by their job's created_at (decision 046): the migration that moves a database holding leads, and
// retention that drops whole partitions. Each on a database of its own: the migration needs one left at the migration
// before, and retention drops partitions (and, run at a time weeks ahead, every job of the database is past it).
const PARTITIONING = '20261201000000_partitioned_leads';
const NEW_FUNCTIONS = ['lead_partition_bounds', 'ensure_lead_partitions', 'drop_expired_lead_partition'];
const suffix = () => `${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_partitions_${randomBytes(3).toString('hex')}`;

async function withClient<T>(url: string, run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** The bytes of the whole leads tree: the parent's partitions, their indexes and TOAST. */
const leadsTreeBytes = (db: Database) =>
  db.sql
    .query<{ bytes: string }>(`SELECT sum(pg_total_relation_size(relid))::bigint AS bytes FROM pg_partition_tree('leads')`)
    .then((r) => Number(r.rows[0]!.bytes));

const partitions = (db: Database) =>
  db.sql.query<{ o_partition: string; o_lower: Date | null; o_upper: Date }>('SELECT * FROM lead_partition_bounds()').then((r) => r.rows);

// Every lead's columns as they were written, in one digest, and the number of leads.
const CONTENT = `SELECT count(*)::int AS n, md5(string_agg(id || '|' || job_id || '|' || position || '|' || dedup_key || '|' || data::text || '|' || created_at, ',' ORDER BY id)) AS digest FROM leads`;

describe('partitioned leads: the migration of a database that holds leads', () => {
  const scratch = scratchDatabaseUrls(suffix());
  let db: Database;
  afterAll(async () => {
    await db?.$disconnect();
    await dropDatabase(scratch.ownerUrl);
  });

  it('when the migration runs beside readers, then every lead and every query is kept, the hot path adds no lead twice, and erasure and deletion reach every partition', async () => {
    // The database as the release before left it: every migration but this one, the function files but the new ones.
    await migrateBefore(scratch.ownerUrl, PARTITIONING, { newFunctions: NEW_FUNCTIONS, runtimeRole: scratch.runtimeRole });
    db = createDatabase(scratch.runtimeUrl, { poolSize: 4 });

    // Leads written as that release wrote them (no job_created_at), 40 jobs of 25, and an open job.
    const { accountId } = await buildAccount(db, { credits: 10_000 });
    const { rows: jobs } = await db.sql.query<{ id: string }>(
      `INSERT INTO jobs (id, account_id, result_set_id, source, status, request, requested_count, delivered_count, provider,
                         credits_reserved, credits_charged, created_at, started_at, finished_at)
       SELECT 'job_part' || lpad(g::text, 16, '0'), $1, 'rs_part' || lpad(g::text, 17, '0'), 'google_maps', 'COMPLETE',
              '{"source":"google_maps","category":"dentist","state":"US","maxResults":25}'::jsonb, 25, 25, 'sandbox', 0, 0,
              now() - interval '2 days' + g * interval '1 minute', now(), now()
       FROM generate_series(1, 40) g RETURNING id`,
      [accountId],
    );
    const lead = (n: number) => ({
      ...buildLead('google_maps', n),
      email: `owner${n}@clinic${n}.example`,
      website: `https://clinic${n}.example`,
    });
    await db.sql.query(
      `INSERT INTO leads (job_id, position, dedup_key, data)
       SELECT j.id, p - 1, 'place-' || p, d FROM unnest($1::text[]) j(id), unnest($2::jsonb[]) WITH ORDINALITY AS x(d, p)`,
      [jobs.map((j) => j.id), Array.from({ length: 25 }, (_, n) => JSON.stringify(lead(n)))],
    );
    const openOld = await buildJob(db, { accountId, status: 'running', maxResults: 10 });
    const firstJob = jobs[0]!.id;
    // What was stored, read as that release's queries read it (this build's name the partition key).
    const before = {
      content: (await db.sql.query(CONTENT)).rows[0],
      stored: (await db.sql.query<{ data: unknown }>('SELECT data FROM leads WHERE job_id = $1 ORDER BY position', [firstJob])).rows.map(
        (r) => r.data,
      ),
    };
    expect(before.content).toMatchObject({ n: 1_000 });

    // Readers all along the migration: none fails, none sees fewer leads.
    let reading = true;
    const seen: number[] = [];
    const readers = withClient(scratch.runtimeUrl, async (client) => {
      while (reading) {
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM leads WHERE job_id = ANY ($1)', [
          jobs.map((j) => j.id),
        ]);
        seen.push(rows[0]!.n);
      }
    });
    const result = await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
    reading = false;
    await readers;
    // the partitioning first, then whatever later releases added
    expect(result.applied[0]).toBe(PARTITIONING);
    expect(result.applied).toEqual(
      readMigrations()
        .filter((m) => m.name >= PARTITIONING)
        .map((m) => m.name),
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([1_000]));

    // The heap is leads_legacy now, attached whole: the same rows, the same answers.
    const [legacy, ...weeks] = await partitions(db);
    expect(legacy).toMatchObject({ o_partition: 'leads_legacy', o_lower: null });
    expect(weeks.length).toBe(2);
    const cutover = legacy!.o_upper;
    expect(cutover.getUTCDay()).toBe(1); // a Monday, 00:00 UTC, after the migration
    expect(cutover.getTime()).toBeGreaterThan(Date.now());
    expect((await db.sql.query(CONTENT)).rows[0]).toEqual(before.content);
    expect((await db.sql.query(`SELECT count(*)::int AS n FROM leads_legacy WHERE job_created_at = '-infinity'`)).rows[0]).toEqual({
      n: 1_000,
    });
    expect((await pageResultSet(db, accountId, 'job', firstJob, 4, 10))!.leads.map((l) => JSON.parse(l.data) as unknown)).toEqual(
      before.stored.slice(5, 15),
    );
    expect(JSON.parse((await readJobView(db, firstJob, accountId))!.leadsJson!)).toEqual(before.stored);
    const csv = await copyResultSetLeads(db, accountId, 'job', firstJob, -1, 100, 'csv');
    expect(csv.rows).toBe(25);
    expect(Buffer.concat(csv.lines).toString()).toContain('owner24@clinic24.example');

    // The hot path: a job opened before the migration adds its leads beside its old ones (leads_legacy); a job
    // created after the cutover to its week's partition. A page sent again adds nothing, in either.
    const openNew = await buildJob(db, { accountId, status: 'running', maxResults: 10 });
    await db.sql.query(`UPDATE jobs SET created_at = $2 WHERE id = $1`, [openNew.id, new Date(cutover.getTime() + 3_600_000)]);
    const page = (from: number) =>
      Array.from({ length: 4 }, (_, n) => ({ dedupKey: `new-${from + n}`, lead: lead(from + n), matches: [] }));
    for (const job of [openOld, openNew]) {
      expect(await commitPage(db, job.id, page(0), 'c1')).toMatchObject({ kind: 'committed', deliveredCount: 4 });
      expect(await commitPage(db, job.id, [...page(0), ...page(4)], 'c2')).toMatchObject({ kind: 'committed', deliveredCount: 8 });
      expect((await listLeads(db, job.id)).length).toBe(8);
    }
    const where = await db.sql.query<{ job_id: string; partition: string; n: number }>(
      `SELECT job_id, tableoid::regclass::text AS partition, count(*)::int AS n FROM leads WHERE job_id = ANY ($1) GROUP BY 1, 2`,
      [[openOld.id, openNew.id]],
    );
    expect(where.rows.sort((a, b) => (a.partition < b.partition ? -1 : 1))).toEqual([
      { job_id: openNew.id, partition: weeks[0]!.o_partition, n: 8 },
      { job_id: openOld.id, partition: 'leads_legacy', n: 8 },
    ]);
    // A key twice in one job is refused by the partition's own unique index, in the new partition as in the old.
    for (const job of [openOld, openNew])
      await expect(
        db.sql.query(
          `INSERT INTO leads (job_id, job_created_at, position, dedup_key, data) SELECT id, created_at, 99, 'new-0', '{}' FROM jobs WHERE id = $1`,
          [job.id],
        ),
      ).rejects.toMatchObject({ code: '23505' });

    // Erasure finds a subject in both partitions through the contact keys' index; deletion takes every lead.
    const erased = await eraseSubject(db, { kind: 'email', value: 'owner2@clinic2.example' });
    expect(erased.perAccount).toEqual([{ accountId, leads: 40 + 2 }]);
    await db.sql.query(`UPDATE jobs SET status = 'CANCELLED', finished_at = now() WHERE id = ANY ($1)`, [[openOld.id, openNew.id]]);
    expect(await deleteAccount(db, accountId, { batch: 300 })).toMatchObject({ outcome: 'deleted', figures: { leads: 1_000 - 40 + 14 } });
    expect((await db.sql.query('SELECT count(*)::int AS n FROM leads')).rows[0]).toEqual({ n: 0 });
  }, 120_000);
});

describe('partitioned leads: retention by whole partitions', () => {
  const scratch = scratchDatabaseUrls(suffix());
  let db: Database;
  let owner: Database;
  beforeAll(async () => {
    await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
    db = createDatabase(scratch.runtimeUrl, { poolSize: 2 });
    owner = createDatabase(scratch.ownerUrl, { poolSize: 1 });
  }, 60_000);
  afterAll(async () => {
    await db?.$disconnect();
    await owner?.$disconnect();
    await dropDatabase(scratch.ownerUrl);
  });

  const DAY = 86_400_000;
  /** A finished job created and finished at the given times, with `leads` leads of about 1 kB each. */
  async function finishedJob(accountId: string, tag: string, createdAt: Date, finishedAt: Date, leads: number): Promise<string> {
    const id = `job_${tag.padEnd(24, '0')}`;
    await owner.sql.query(
      `INSERT INTO jobs (id, account_id, result_set_id, source, status, request, requested_count, delivered_count, provider,
                         credits_reserved, credits_charged, created_at, started_at, finished_at)
       VALUES ($1, $2, 'rs_' || substr($1, 5), 'google_maps', 'COMPLETE', '{"source":"google_maps","category":"dentist","state":"US","maxResults":1}'::jsonb,
               $3, $3, 'sandbox', 0, 0, $4, $4, $5)`,
      [id, accountId, leads, createdAt, finishedAt],
    );
    await owner.sql.query(
      `INSERT INTO leads (job_id, job_created_at, position, dedup_key, data)
       SELECT $1, $2, p, 'k' || p, jsonb_build_object('businessName', 'Studio ' || p, 'email', 'x' || p || '@s.example', 'notes', repeat(md5(p::text), 30))
       FROM generate_series(0, $3::int - 1) p`,
      [id, createdAt, leads],
    );
    return id;
  }

  it('when a partition holds only jobs past the retention, then it is dropped whole and the disk shrinks by it; the partition at the edge loses its expired leads row by row', async () => {
    const { accountId } = await buildAccount(db, { credits: 0 });
    const [legacy, week1, week2] = await partitions(db);
    const cutover = legacy!.o_upper.getTime();
    const old = await finishedJob(accountId, 'old', new Date(cutover - 100 * DAY), new Date(cutover - 99 * DAY), 3_000);
    const aged = await finishedJob(accountId, 'aged', new Date(cutover + 3_600_000), new Date(cutover + 7_200_000), 500);
    const recent = await finishedJob(accountId, 'recent', new Date(cutover + 7_200_000), new Date(cutover + 10 * DAY), 20);
    await owner.sql.query('ANALYZE leads');
    const size = (name: string) =>
      owner.sql
        .query<{ bytes: string }>(`SELECT pg_total_relation_size($1::regclass)::bigint AS bytes`, [name])
        .then((r) => Number(r.rows[0]!.bytes));
    const legacyBytes = await size('leads_legacy');
    const before = await leadsTreeBytes(db);
    const epoch = async () => (await db.sql.query<{ epoch: string }>('SELECT epoch FROM erasure_epoch')).rows[0]!.epoch;
    const epochBefore = await epoch();

    // Sixteen days after the cutover with a retention of 7: old and aged are past it, recent (finished on day 10) is not.
    const told: string[] = [];
    const report = await expireLeads(db, 7, { now: new Date(cutover + 16 * DAY), onExpired: async (ids) => void told.push(...ids) });
    expect(report.partitions).toEqual(['leads_legacy', week2!.o_partition]);
    expect(report.lockTimedOut).toBe(false);
    expect(report.leads).toBe(3_000 + 500);
    expect(told.sort()).toEqual([aged, old].sort());
    expect(report.jobs).toBe(2);

    const after = await leadsTreeBytes(db);
    expect(legacyBytes).toBeGreaterThan(3_000 * 1_000);
    expect(after).toBeLessThanOrEqual(before - legacyBytes);
    expect((await partitions(db)).map((p) => p.o_partition)).toEqual([week1!.o_partition]);
    expect(await listLeads(db, old)).toEqual([]);
    expect(await listLeads(db, aged)).toEqual([]);
    expect((await listLeads(db, recent)).length).toBe(20);
    const marked = await db.sql.query<{ id: string; expired: boolean }>(
      'SELECT id, leads_expired_at IS NOT NULL AS expired FROM jobs WHERE id = ANY ($1) ORDER BY id',
      [[old, aged, recent]],
    );
    expect(Object.fromEntries(marked.rows.map((r) => [r.id, r.expired]))).toEqual({ [old]: true, [aged]: true, [recent]: false });
    expect(BigInt(await epoch())).toBeGreaterThan(BigInt(epochBefore));

    // Run again: nothing more is due.
    expect(await expireLeads(db, 7, { now: new Date(cutover + 16 * DAY) })).toEqual({
      jobs: 0,
      leads: 0,
      partitions: [],
      lockTimedOut: false,
    });
  });

  it('when the partitions ahead are ensured by the runtime role, then the missing weeks are made, each with its keys, and a second run makes none', async () => {
    const made = await ensureLeadPartitions(db, 5);
    expect(made.length).toBeGreaterThan(0);
    expect(await ensureLeadPartitions(db, 5)).toEqual([]);
    const bounds = await partitions(db);
    const thisWeek = new Date(Date.now());
    const last = bounds[bounds.length - 1]!.o_upper.getTime();
    expect(last).toBeGreaterThanOrEqual(thisWeek.getTime() + 5 * 7 * DAY);
    for (let i = 1; i < bounds.length; i++) expect(bounds[i]!.o_lower!.getTime()).toBe(bounds[i - 1]!.o_upper.getTime());
    const keys = await db.sql.query<{ partition: string; keys: string[] }>(
      `SELECT c.relname AS partition, array_agg(pg_get_indexdef(i.indexrelid) ORDER BY 1) FILTER (WHERE i.indisunique) AS keys
       FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid JOIN pg_index i ON i.indrelid = c.oid
       WHERE h.inhparent = 'leads'::regclass AND c.relname = ANY ($1) GROUP BY c.relname`,
      [made],
    );
    expect(keys.rows.length).toBe(made.length);
    // The runtime role may read each (pg_dump reads partitions one by one), as it may read leads.
    for (const name of made) expect((await db.sql.query(`SELECT count(*)::int AS n FROM ${name}`)).rows).toEqual([{ n: 0 }]);
    for (const row of keys.rows)
      expect(row.keys.map((k) => k.replace(/^.* USING btree /, '')).sort()).toEqual([
        '(id)',
        '(job_id, "position")',
        '(job_id, dedup_key)',
      ]);
  });
});

describe('a migration marked --! online', () => {
  const scratch = scratchDatabaseUrls(suffix());
  afterAll(() => dropDatabase(scratch.ownerUrl));

  it('when a later section fails, then the sections before it stay committed and the migration is not recorded; run again, it completes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-online-'));
    const empty = mkdtempSync(path.join(tmpdir(), 'leadgen-online-fn-'));
    const write = (last: string) => {
      mkdirSync(path.join(dir, '99990101000000_online'), { recursive: true });
      writeFileSync(
        path.join(dir, '99990101000000_online', 'migration.sql'),
        `--! online\nCREATE TABLE IF NOT EXISTS step_one (n int);\n--! commit\nINSERT INTO step_one SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM step_one);\n--! commit\n${last}\n`,
      );
    };
    try {
      write('SELECT 1 / 0;');
      await expect(migrate(scratch.ownerUrl, { migrationsDir: dir, functionsDir: empty })).rejects.toThrow(/division by zero/);
      await withClient(scratch.ownerUrl, async (client) => {
        expect((await client.query('SELECT n FROM step_one')).rows).toEqual([{ n: 1 }]);
        expect((await client.query('SELECT count(*)::int AS n FROM _prisma_migrations')).rows).toEqual([{ n: 0 }]);
      });
      write('CREATE TABLE step_three (n int);');
      expect((await migrate(scratch.ownerUrl, { migrationsDir: dir, functionsDir: empty })).applied).toEqual(['99990101000000_online']);
      await withClient(scratch.ownerUrl, async (client) => {
        expect((await client.query('SELECT n FROM step_one')).rows).toEqual([{ n: 1 }]);
        expect((await client.query('SELECT count(*)::int AS n FROM step_three')).rows).toEqual([{ n: 0 }]);
      });
    } finally {
      rmSync(dir, { recursive: true });
      rmSync(empty, { recursive: true });
    }
  });

  it('when a section is marked --! no-transaction, then it runs outside any transaction (CREATE INDEX CONCURRENTLY), only once the migrations before it are applied, and the main transaction leaves it out', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-online-'));
    const empty = mkdtempSync(path.join(tmpdir(), 'leadgen-online-fn-'));
    const write = (name: string, sql: string) => {
      mkdirSync(path.join(dir, name), { recursive: true });
      writeFileSync(path.join(dir, name, 'migration.sql'), sql);
    };
    // The index's migration: built CONCURRENTLY where its table exists already, else by the main transaction.
    const indexMigration = [
      '--! online',
      '--! no-transaction',
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS conc_n_idx ON conc (n);',
      '--! commit',
      "DO $$ BEGIN IF to_regclass('public.conc_n_idx') IS NULL THEN CREATE INDEX conc_n_idx ON conc (n); END IF; END $$;",
    ].join('\n');
    const fresh = scratchDatabaseUrls(suffix());
    try {
      // A database with the table: the section builds the index outside the main transaction.
      write('99990101000000_table', 'CREATE TABLE conc (n int);');
      await migrate(scratch.ownerUrl, { migrationsDir: dir, functionsDir: empty });
      write('99990102000000_index', indexMigration);
      await withClient(scratch.ownerUrl, async (client) => {
        await client.query('INSERT INTO conc SELECT generate_series(1, 1000)');
      });
      expect((await migrate(scratch.ownerUrl, { migrationsDir: dir, functionsDir: empty })).applied).toEqual(['99990102000000_index']);
      await withClient(scratch.ownerUrl, async (client) => {
        expect((await client.query(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'conc_n_idx'::regclass`)).rows).toEqual([
          { indisvalid: true },
        ]);
      });
      // A fresh database (the table's migration pending too): the section is skipped and the main transaction builds it.
      const result = await migrate(fresh.ownerUrl, { migrationsDir: dir, functionsDir: empty });
      expect(result.applied).toEqual(['99990101000000_table', '99990102000000_index']);
      await withClient(fresh.ownerUrl, async (client) => {
        expect((await client.query(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'conc_n_idx'::regclass`)).rows).toEqual([
          { indisvalid: true },
        ]);
      });
    } finally {
      await dropDatabase(fresh.ownerUrl);
      rmSync(dir, { recursive: true });
      rmSync(empty, { recursive: true });
    }
  });
});

import { randomBytes } from 'node:crypto';
import { normalizeSuppression, type SubjectEntry, type SubjectKind } from '@leadgen/domain';
import {
  createAccount,
  createDatabase,
  dropDatabase,
  ensureWeeklyPartitions,
  eraseSubject,
  excerptClearing,
  migrate,
  migrateBefore,
  partitionBounds,
  type Database,
} from '../src';
import { scratchDatabaseUrls } from '../../../test/runtime-role';

// Webhook attempts' excerpts found through trigram indexes (issue 39, decision 053): the migration run on a database
// holding attempts in the legacy partition and in a week's, each partition's index built and attached, and a new
// week's partition given them by ATTACH; the erasure clears the excerpts holding the subject in any of its forms and
// keeps the others; and its statement, as PostgreSQL plans it with analysed tables (custom and generic plans), reads
// the indexes, not the heaps. On a database of its own.
const TRIGRAM = '20261204000000_webhook_excerpt_trigram_indexes';
const INDEXES = ['webhook_attempts_response_excerpt_trgm_idx', 'webhook_attempts_excerpt_digits_trgm_idx'];

const subject = (kind: SubjectKind, text: string): SubjectEntry => ({ kind, value: normalizeSuppression(kind, text)! }) as SubjectEntry;

// An excerpt per case: the subject as a receiver may echo it (another case, another phone format, a profile URL of
// another form), and excerpts that hold none of them.
const HOLDING: Array<[SubjectEntry, string]> = [
  [subject('email', 'jane.doe@acme-dental.example'), '{"error":"duplicate contact","email":"Jane.Doe@Acme-Dental.example"}'],
  [subject('domain', 'bright-smiles.example'), 'lead for https://www.Bright-Smiles.example/contact accepted'],
  [subject('phone', '+1 512 555 0199'), '{"ok":true,"phone":"(512) 555-0199"}'],
  [subject('linkedin', 'https://www.linkedin.com/in/jane-doe-123'), 'stored profile http://linkedin.com/in/jane-doe-123/ for review'],
];
const KEPT = [
  'ok',
  '{"ok":true,"id":"req_1"}',
  'contact other@elsewhere.example',
  '{"phone":"512 555 0100"}',
  'in/jane-doe-12 and bright.example',
];

describe('webhook attempts: trigram indexes on the kept excerpts', () => {
  const scratch = scratchDatabaseUrls(`${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_trgm_${randomBytes(3).toString('hex')}`);
  let db: Database;
  let owner: Database;
  let accountId: string;
  afterAll(async () => {
    await db?.$disconnect();
    await owner?.$disconnect();
    await dropDatabase(scratch.ownerUrl);
  });

  const attachedPartitions = async (index: string) =>
    (
      await owner.sql.query<{ partition: string }>(
        `SELECT x.indrelid::regclass::text AS partition FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid
         WHERE i.inhparent = $1::regclass AND x.indisvalid ORDER BY 1`,
        [index],
      )
    ).rows.map((r) => r.partition);
  const partitions = async () =>
    (
      await owner.sql.query<{ p: string }>(
        `SELECT inhrelid::regclass::text AS p FROM pg_inherits WHERE inhparent = 'webhook_attempts'::regclass ORDER BY 1`,
      )
    ).rows.map((r) => r.p);

  it('when the migration runs on a database holding attempts, then every partition has both indexes, valid and attached, and a new week gets them', async () => {
    await migrateBefore(scratch.ownerUrl, TRIGRAM, { newFunctions: [], runtimeRole: scratch.runtimeRole });
    db = createDatabase(scratch.runtimeUrl, { poolSize: 3 });
    owner = createDatabase(scratch.ownerUrl, { poolSize: 2 });
    accountId = (await createAccount(db, 'trgm')).id;
    // 10,000 deliveries in the legacy partition (now) and 10,000 in the first week after it, an attempt each, with a
    // receiver's small JSON answer. (Below some 5,000 attempts a partition's hundred-odd pages cost the planner less
    // read whole than a GIN search of some thirty trigrams, and it rightly reads them whole.)
    const [, firstWeek] = await partitionBounds(db, 'webhook_attempts');
    await owner.sql.query(
      `INSERT INTO webhook_deliveries (id, account_id, url, event_type, status, created_at)
       SELECT 'msg_t' || lpad(g::text, 27, '0'), $1, 'https://hooks.example/x', 'job.completed', 'succeeded',
              CASE WHEN g % 2 = 0 THEN now() ELSE $2::timestamptz + interval '1 hour' END
       FROM generate_series(1, 20000) g`,
      [accountId, firstWeek!.lower],
    );
    await owner.sql.query(
      `INSERT INTO webhook_attempts (delivery_id, delivery_created_at, attempt, url, started_at, response_status, latency_ms, response_excerpt, succeeded)
       SELECT d.id, d.created_at, 1, d.url, d.created_at, 200, 50,
              '{"ok":true,"received":"' || d.id || '","request_id":"req_' || md5(d.id) || '"}', true
       FROM webhook_deliveries d`,
    );
    const result = await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
    expect(result.applied).toEqual([TRIGRAM]);

    const before = await partitions();
    expect(before).toContain('webhook_attempts_legacy');
    for (const index of INDEXES) {
      const valid = await owner.sql.query<{ indisvalid: boolean }>(`SELECT indisvalid FROM pg_index WHERE indexrelid = $1::regclass`, [
        index,
      ]);
      expect(valid.rows).toEqual([{ indisvalid: true }]);
      expect(await attachedPartitions(index)).toEqual(before);
    }

    // The fleet's sweep makes the weeks after (the runtime role, through ensure_weekly_partitions): ATTACH builds them.
    const made = await ensureWeeklyPartitions(db, 6);
    expect(made.filter((p) => p.startsWith('webhook_attempts_')).length).toBeGreaterThan(0);
    const after = await partitions();
    for (const index of INDEXES) expect(await attachedPartitions(index)).toEqual(after);
  });

  it('when a subject is erased, then the excerpts holding it in any form are cleared and the others kept', async () => {
    const delivery = 'msg_t' + '2'.padStart(27, '0');
    await owner.sql.query(`DELETE FROM webhook_attempts WHERE delivery_id = $1`, [delivery]);
    const excerpts = [...HOLDING.map(([, excerpt]) => excerpt), ...KEPT];
    await owner.sql.query(
      `INSERT INTO webhook_attempts (delivery_id, delivery_created_at, attempt, url, started_at, response_status, latency_ms, response_excerpt, succeeded)
       SELECT d.id, d.created_at, e.n, d.url, now(), 200, 5, e.excerpt, true
       FROM webhook_deliveries d, unnest($2::text[]) WITH ORDINALITY AS e(excerpt, n) WHERE d.id = $1`,
      [delivery, excerpts],
    );
    for (const [entry] of HOLDING) {
      const report = await eraseSubject(db, entry);
      expect(report.webhookExcerptsCleared).toBe(1);
    }
    const { rows } = await owner.sql.query<{ response_excerpt: string | null }>(
      `SELECT response_excerpt FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt`,
      [delivery],
    );
    expect(rows.map((r) => r.response_excerpt)).toEqual([...HOLDING.map(() => null), ...KEPT]);
    // The seeded excerpts are all kept.
    const others = await owner.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_attempts WHERE response_excerpt LIKE '{"ok":true,"received"%'`,
    );
    expect(others.rows[0]!.n).toBe(19_999);
  });

  it('when the erasure clears excerpts at 10,000 attempts a partition, then PostgreSQL reads each partition holding attempts through the trigram indexes, custom plan or generic', async () => {
    // As autovacuum leaves the tables after such a load: statistics read, and each GIN index's pending list merged and
    // its metapage's counts (what the planner costs a GIN search by) written. No planner setting is changed.
    await owner.sql.query('VACUUM ANALYZE webhook_attempts');
    const nonEmpty = (
      await owner.sql.query<{ p: string }>(`SELECT DISTINCT tableoid::regclass::text AS p FROM webhook_attempts ORDER BY 1`)
    ).rows.map((r) => r.p);
    expect(nonEmpty.length).toBe(2);
    const client = await owner.sql.connect();
    try {
      for (const [entry] of HOLDING) {
        const { sql, params } = excerptClearing(entry);
        const index = entry.kind === 'phone' ? 'excerpt_digits_trgm_idx' : 'response_excerpt_trgm_idx';
        const custom = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
        await client.query('BEGIN');
        await client.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
        await client.query(`PREPARE clearing(text) AS ${sql}`);
        const generic = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE clearing(${client.escapeLiteral(params[0]!)})`)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
        await client.query('DEALLOCATE clearing');
        await client.query('ROLLBACK');
        for (const plan of [custom, generic]) {
          for (const partition of nonEmpty) {
            expect(plan).toContain(`Bitmap Index Scan on ${partition}_${index}`);
            expect(plan).not.toContain(`Seq Scan on ${partition} `);
          }
        }
      }
    } finally {
      client.release();
    }
  });
});

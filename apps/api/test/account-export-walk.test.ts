import {
  copyAccountLeads,
  createDatabase,
  type Database,
  type ExportChunk,
  type ExportLineFormat,
  type LeadFilter,
  type LeadKeyset,
} from '@leadgen/db';
import { AccountExportWalk, exportWalkEvents, type ExportRead } from '../src/account-export-walk';
import type { ExportPace } from '../src/http/export-pacing';
import { buildAccount, buildDeliveredJobs } from '../../../test/factories';

// Issue 39: the account's export reads ranges of whole jobs, two at once while nothing waits, and small keyset chunks
// one at a time while anything does. Whatever the mix, its bytes must be the sequential keyset walk's (the path before
// it, kept below as the reference), in the same order, each lead once.
let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 4 });
});
afterAll(() => db.$disconnect());

const NO_FILTER: LeadFilter = { source: null, jobId: null, createdAfter: null, createdBefore: null };

/** The reference: the sequential walk the route ran before (keyset chunks of 2,000 until an empty one). */
async function sequential(accountId: string, filter: LeadFilter, cursor: LeadKeyset | null, format: ExportLineFormat): Promise<Buffer> {
  const lines: Buffer[] = [];
  let chunk = await copyAccountLeads(db, accountId, filter, cursor, 2000, format);
  while (chunk.rows > 0) {
    lines.push(...chunk.lines);
    chunk = await copyAccountLeads(db, accountId, filter, chunk.last, 2000, format);
  }
  return Buffer.concat(lines);
}

/** A pace that never yields; `size(call)` is what its chunk() answers on its call-th call (1-based). */
function fakePace(size: (call: number) => number | Promise<number>): ExportPace {
  let calls = 0;
  return { yields: 0, pace: () => null, chunk: async () => size(++calls), end: () => undefined };
}

async function walkAll(walk: AccountExportWalk): Promise<{ body: Buffer; parts: ExportChunk[] }> {
  const parts: ExportChunk[] = [];
  for (let part = await walk.next(); part.rows > 0; part = await walk.next()) parts.push(part);
  return { body: Buffer.concat(parts.flatMap((p) => p.lines)), parts };
}

/** Jobs of `sizes` leads each, one second apart in that order; returns their ids in the export's order. */
async function jobsOf(accountId: string, sizes: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const size of sizes) ids.push(...(await buildDeliveredJobs(db, accountId, 1, size)));
  const { rows } = await db.sql.query<{ id: string }>(`SELECT id FROM jobs WHERE account_id = $1 ORDER BY created_at, id`, [accountId]);
  expect(rows.map((r) => r.id)).toEqual(ids);
  return ids;
}

describe('the account export read in ranges of whole jobs', () => {
  let accountId: string;
  let ids: string[];
  let created: Date[];
  // Uneven: empty jobs, a job bigger than a chunk (FULL = 50), one of a single lead, runs of small ones.
  const SIZES = [0, 120, 7, 0, 30, 30, 1, 60, 0, 45, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 90, 0];
  const FULL = 50;

  beforeAll(async () => {
    ({ accountId } = await buildAccount(db, { credits: 0 }));
    ids = await jobsOf(accountId, SIZES);
    // Counts that lie (only sizing may use them): a running job not counted yet, an erased one still counted, an
    // expired one, another source.
    await db.sql.query(`UPDATE jobs SET delivered_count = 0 WHERE id = $1`, [ids[1]]);
    await db.sql.query(`UPDATE jobs SET requested_count = 500, delivered_count = 500 WHERE id = $1`, [ids[3]]);
    await db.sql.query(`UPDATE jobs SET leads_expired_at = now() WHERE id = $1`, [ids[9]]);
    await db.sql.query(`UPDATE jobs SET source = 'linkedin' WHERE id = ANY ($1)`, [[ids[2], ids[5], ids[7], ids[12]]]);
    // Two jobs of the same instant: the order is then the jobs' ids.
    await db.sql.query(
      `WITH t AS (SELECT created_at FROM jobs WHERE id = $1)
       UPDATE jobs SET created_at = (SELECT created_at FROM t) WHERE id = $2`,
      [ids[4], ids[5]],
    );
    await db.sql.query(`UPDATE leads SET job_created_at = (SELECT created_at FROM jobs WHERE id = $1) WHERE job_id = $1`, [ids[5]]);
    const { rows } = await db.sql.query<{ created_at: Date }>(`SELECT created_at FROM jobs WHERE id = ANY ($1) ORDER BY created_at, id`, [
      ids,
    ]);
    created = rows.map((r) => r.created_at);
  });

  const cases: Array<[string, () => { filter: LeadFilter; cursor: LeadKeyset | null }]> = [
    ['the whole account', () => ({ filter: NO_FILTER, cursor: null })],
    [
      'from a cursor inside the job bigger than a chunk',
      () => ({ filter: NO_FILTER, cursor: { jobCreatedAt: created[1]!, jobId: ids[1]!, position: 60 } }),
    ],
    [
      'from a cursor at a job’s last lead',
      () => ({ filter: NO_FILTER, cursor: { jobCreatedAt: created[2]!, jobId: ids[2]!, position: 6 } }),
    ],
    ['one source', () => ({ filter: { ...NO_FILTER, source: 'linkedin' }, cursor: null })],
    [
      'one source from a cursor',
      () => ({ filter: { ...NO_FILTER, source: 'google_maps' }, cursor: { jobCreatedAt: created[4]!, jobId: ids[4]!, position: 10 } }),
    ],
    ['one job', () => ({ filter: { ...NO_FILTER, jobId: ids[1]! }, cursor: null })],
    [
      'created after and before',
      () => ({ filter: { ...NO_FILTER, createdAfter: created[4]!, createdBefore: created[22]! }, cursor: null }),
    ],
    ['a selection of no lead', () => ({ filter: { ...NO_FILTER, createdBefore: created[0]! }, cursor: null })],
  ];

  it.each(cases)('when %s is exported in ranges, then the bytes are the sequential walk’s, in both formats', async (_name, selection) => {
    const { filter, cursor } = selection();
    for (const format of ['csv', 'jsonl'] as const) {
      const reference = await sequential(accountId, filter, cursor, format);
      expect(reference.length > 0).toBe(_name !== 'a selection of no lead');
      // Ranges only (nothing waits), then small chunks only, then both in turn (contended every third read).
      for (const size of [() => FULL, () => 7, (call: number) => (call % 3 === 0 ? 7 : FULL)]) {
        const walk = new AccountExportWalk(db, accountId, filter, cursor, format, FULL, fakePace(size));
        const { body } = await walkAll(walk);
        expect(body.equals(reference)).toBe(true);
      }
    }
  });

  it('when nothing waits, then two ranges are read at once; while something waits, one small chunk at a time', async () => {
    const reads: ExportRead[] = [];
    const record = (read: ExportRead) => reads.push(read);
    // The account's whole export as CSV, its pace answering `size` each time.
    const csvWalk = (size: number) =>
      new AccountExportWalk(
        db,
        accountId,
        NO_FILTER,
        null,
        'csv',
        FULL,
        fakePace(() => size),
      );
    exportWalkEvents.on('read', record);
    try {
      await walkAll(csvWalk(FULL));
      expect(reads.every((r) => r.kind === 'range' && r.inFlight <= 2)).toBe(true);
      expect(reads.some((r) => r.inFlight === 2)).toBe(true);
      reads.length = 0;
      await walkAll(csvWalk(7));
      expect(reads.length).toBeGreaterThan(1);
      expect(reads.every((r) => r.kind === 'keyset' && r.inFlight === 1)).toBe(true);
    } finally {
      exportWalkEvents.off('read', record);
    }
  });

  it('when a range’s read fails, then the export fails with it and no read starts after', async () => {
    const reads: ExportRead[] = [];
    const record = (read: ExportRead) => reads.push(read);
    const broken = {
      ...db,
      sql: { ...db.sql, connect: db.sql.connect.bind(db.sql), query: db.sql.query.bind(db.sql) },
    } as unknown as Database;
    let connects = 0;
    (broken.sql as { connect: () => Promise<unknown> }).connect = async () => {
      connects += 1;
      if (connects === 2) throw new Error('connection refused');
      return db.sql.connect();
    };
    exportWalkEvents.on('read', record);
    try {
      const walk = new AccountExportWalk(
        broken,
        accountId,
        NO_FILTER,
        null,
        'jsonl',
        FULL,
        fakePace(() => FULL),
      );
      const first = await walk.next();
      expect(first.rows).toBeGreaterThan(0);
      await expect(walk.next()).rejects.toThrow('connection refused');
      const launched = reads.length;
      expect((await walk.next()).rows).toBe(0);
      expect(reads.length).toBe(launched);
    } finally {
      exportWalkEvents.off('read', record);
    }
  });
});

describe('an export whose client went', () => {
  it('when the walk is stopped with two COPYs held mid-stream, then both end at once and their backends stop', async () => {
    const { accountId } = await buildAccount(db, { credits: 0 });
    await buildDeliveredJobs(db, accountId, 40, 100);
    // The pace holds every COPY after its first block, forever: only the stop can end the reads.
    let held = 0;
    const pace: ExportPace = {
      yields: 0,
      pace: () => {
        held += 1;
        return new Promise<void>(() => undefined);
      },
      chunk: async (full) => full,
      end: () => undefined,
    };
    const walk = new AccountExportWalk(db, accountId, NO_FILTER, null, 'csv', 2000, pace);
    const first = walk.next();
    for (let i = 0; i < 500 && held < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(held).toBe(2); // both ranges' COPYs have sent data and are held
    walk.stop();
    await expect(first).rejects.toThrow('export stopped');
    await expect(walk.next()).rejects.toThrow('export stopped'); // the second range, stopped as well
    expect((await walk.next()).rows).toBe(0); // and no read after them
    // Their connections were closed, so their backends end the COPYs (no COPY of this account left running).
    const running = async () =>
      (
        await db.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT%' AND query LIKE $1 AND pid <> pg_backend_pid()`,
          [`%${accountId}%`],
        )
      ).rows[0]!.n;
    for (let i = 0; i < 200 && (await running()) > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await running()).toBe(0);
    // The pool goes on (the closed connections were dropped, not handed out again).
    expect((await db.sql.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });
});

describe('leads delivered while the account is exported', () => {
  it('when leads are appended to jobs and a job is created mid-export, then none is doubled and each is in it iff its job had not been passed', async () => {
    const { accountId } = await buildAccount(db, { credits: 0 });
    const ids = await jobsOf(accountId, [3, 3, 3, 3]);
    const append = (jobId: string, position: number) =>
      db.sql.query(
        `INSERT INTO leads (job_id, job_created_at, position, dedup_key, data)
         SELECT id, created_at, $2, $3, '{"source":"google_maps","businessName":"late"}'::jsonb FROM jobs WHERE id = $1`,
        [jobId, position, `late-${position}`],
      );
    let later: string[] = [];
    // FULL = 3: one job a range. chunk() is called before each read: the 3rd call launches the third job's range,
    // when the first job's read has ended (it was handed out) and the second's has started.
    const pace = fakePace(async (call) => {
      if (call === 3) {
        await append(ids[0]!, 3); // its job was passed: not in this export (nor in the sequential walk's, one chunk on)
        await append(ids[2]!, 3); // its job's read starts after this: in the export, once
        later = await buildDeliveredJobs(db, accountId, 1, 2); // a job created meanwhile, after every other
      }
      return 3;
    });
    const { body } = await walkAll(new AccountExportWalk(db, accountId, NO_FILTER, null, 'jsonl', 3, pace));
    const got = body
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const { jobId, position } = JSON.parse(line) as { jobId: string; position: number };
        return `${jobId}:${position}`;
      });
    const expected = [
      ...[0, 1, 2].map((p) => `${ids[0]}:${p}`),
      ...[0, 1, 2].map((p) => `${ids[1]}:${p}`),
      ...[0, 1, 2, 3].map((p) => `${ids[2]}:${p}`),
      ...[0, 1, 2].map((p) => `${ids[3]}:${p}`),
      ...[0, 1].map((p) => `${later[0]}:${p}`),
    ];
    expect(got).toEqual(expected);
    // The next export (or the sequential walk now) has the one appended to the passed job.
    expect((await sequential(accountId, NO_FILTER, null, 'jsonl')).toString().trim().split('\n')).toHaveLength(expected.length + 1);
  });
});

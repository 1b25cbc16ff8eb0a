import { randomBytes } from 'node:crypto';
import {
  createDatabase,
  dropDatabase,
  ensureWeeklyPartitions,
  listAuditEvents,
  migrate,
  partitionBounds,
  purgeAuditEvents,
  migrateBefore,
  recordAuditEvent,
  type Database,
} from '../src';
import { scratchDatabaseUrls } from '../../../test/runtime-role';

// audit_events partitioned by week of its created_at (decision 053): the online migration of a database that holds
// events, with the service reading and writing beside it; retention that drops whole weeks; the weeks ahead made by the
// runtime role. On a database of its own: it must be left at the migration before, and retention drops partitions.
const PARTITIONING = '20261202000000_partitioned_audit_events';
const NEW_FUNCTIONS = ['drop_partition_past'];
// changed with it: the append-only trigger goes on the new parent when its file is applied again, in the same transaction
const CHANGED_FUNCTIONS = ['audit_events_append_only'];
const DAY = 86_400_000;

// Every event's columns as they were written, in one digest, and the number of events.
const CONTENT = `SELECT count(*)::int AS n, md5(string_agg(id || '|' || COALESCE(account_id, '') || '|' || actor || '|' || action || '|' ||
  COALESCE(request_id, '') || '|' || summary::text || '|' || created_at, ',' ORDER BY id)) AS digest FROM audit_events WHERE actor = 'operator'`;

/** The bytes of the whole audit_events tree: its partitions, their indexes and TOAST. */
const treeBytes = (db: Database) =>
  db.sql
    .query<{ bytes: string }>(`SELECT sum(pg_total_relation_size(relid))::bigint AS bytes FROM pg_partition_tree('audit_events')`)
    .then((r) => Number(r.rows[0]!.bytes));

describe('partitioned audit events', () => {
  const scratch = scratchDatabaseUrls(`${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_audit_${randomBytes(3).toString('hex')}`);
  let db: Database;
  let owner: Database;
  afterAll(async () => {
    await db?.$disconnect();
    await owner?.$disconnect();
    await dropDatabase(scratch.ownerUrl);
  });

  it('when the migration runs while the service lists and records events, then none fails, every event is kept and new ones land in their week', async () => {
    // The database as the release before left it: every migration but this one (and the function file it brings).
    await migrateBefore(scratch.ownerUrl, PARTITIONING, {
      newFunctions: NEW_FUNCTIONS,
      changedFunctions: CHANGED_FUNCTIONS,
      runtimeRole: scratch.runtimeRole,
    });
    db = createDatabase(scratch.runtimeUrl, { poolSize: 4 });
    owner = createDatabase(scratch.ownerUrl, { poolSize: 2 });
    expect((await owner.sql.query(`SELECT relkind FROM pg_class WHERE oid = 'audit_events'::regclass`)).rows).toEqual([{ relkind: 'r' }]);

    // 20,000 events over the last 100 days, two accounts, written as that release wrote them.
    await owner.sql.query(
      `INSERT INTO audit_events (id, account_id, actor, action, request_id, summary, created_at)
       SELECT 'aud_old' || lpad(g::text, 17, '0'), CASE WHEN g % 2 = 0 THEN 'acct_even' ELSE 'acct_odd' END, 'operator', 'key.created',
              NULL, jsonb_build_object('n', g, 'pad', repeat('x', 200)), now() - (g * interval '432 seconds')
       FROM generate_series(1, 20000) g`,
    );
    const before = (await owner.sql.query(CONTENT)).rows[0] as { n: number; digest: string };
    expect(before.n).toBe(20_000);
    const firstPage = await listAuditEvents(db, 'acct_even', { action: null }, null, 50);

    // The service all along the migration: a reader lists an account's events, a writer records events.
    let running = true;
    const seen: number[] = [];
    let written = 0;
    const failures: unknown[] = [];
    const reader = (async () => {
      while (running) {
        try {
          const { rows } = await db.sql.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM audit_events WHERE account_id = 'acct_even' AND actor = 'operator'`,
          );
          seen.push(rows[0]!.n);
          await listAuditEvents(db, 'acct_even', { action: null }, null, 20);
        } catch (error) {
          failures.push(error);
        }
      }
    })();
    const writer = (async () => {
      while (running) {
        try {
          await recordAuditEvent(db, {
            accountId: 'acct_new',
            action: 'key.revoked',
            summary: { written },
            actor: 'key_writer',
            requestId: null,
          });
          written += 1;
        } catch (error) {
          failures.push(error);
        }
      }
    })();
    const result = await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
    running = false;
    await Promise.all([reader, writer]);
    expect(result.applied[0]).toBe(PARTITIONING);
    expect(failures).toEqual([]);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([10_000]));
    expect(written).toBeGreaterThan(0);

    // The heap is audit_events_legacy now, attached whole, with the same rows and the same answers.
    const [legacy, ...weeks] = await partitionBounds(db, 'audit_events');
    expect(legacy).toMatchObject({ partition: 'audit_events_legacy', lower: null });
    expect(weeks.length).toBe(2);
    expect(legacy!.upper.getUTCDay()).toBe(1); // a Monday, 00:00 UTC
    expect(legacy!.upper.getTime()).toBeGreaterThan(Date.now() + 7 * DAY);
    expect((await owner.sql.query(`SELECT relkind FROM pg_class WHERE oid = 'audit_events'::regclass`)).rows).toEqual([{ relkind: 'p' }]);
    expect((await owner.sql.query(CONTENT)).rows[0]).toEqual(before);
    expect((await db.sql.query(`SELECT count(*)::int AS n FROM audit_events WHERE account_id = 'acct_new'`)).rows).toEqual([
      { n: written },
    ]);
    expect(await listAuditEvents(db, 'acct_even', { action: null }, null, 50)).toEqual(firstPage);
    const last = firstPage[firstPage.length - 1]!;
    expect((await listAuditEvents(db, 'acct_even', { action: null }, { createdAt: last.createdAt, id: last.id }, 5)).length).toBe(5);

    // Still append-only, in the old heap as in a new week.
    await recordAuditEvent(owner, { accountId: 'acct_new', action: 'key.created', summary: {}, actor: 'operator', requestId: null });
    await owner.sql.query(
      `INSERT INTO audit_events (id, account_id, actor, action, summary, created_at) VALUES ('aud_week1', 'acct_new', 'operator', 'key.created', '{}', $1)`,
      [new Date(weeks[0]!.lower!.getTime() + DAY)],
    );
    for (const id of ['aud_old00000000000000001', 'aud_week1']) {
      await expect(owner.sql.query(`UPDATE audit_events SET action = 'key.revoked' WHERE id = $1`, [id])).rejects.toThrow(/append-only/);
      await expect(owner.sql.query(`DELETE FROM audit_events WHERE id = $1`, [id])).rejects.toThrow(/append-only/);
    }
    const where = await db.sql.query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM audit_events WHERE id = 'aud_week1'`,
    );
    expect(where.rows).toEqual([{ partition: weeks[0]!.partition }]);
  }, 180_000);

  it('when the runtime role makes the weeks ahead, then each has the key and the trigger and takes the events of its week, and a second run makes none', async () => {
    const made = await ensureWeeklyPartitions(db, 5);
    const madeAudit = made.filter((name) => name.startsWith('audit_events_'));
    expect(madeAudit.length).toBeGreaterThan(0);
    expect(made.some((name) => name.startsWith('leads_'))).toBe(true);
    expect(await ensureWeeklyPartitions(db, 5)).toEqual([]);
    const bounds = await partitionBounds(db, 'audit_events');
    for (let i = 1; i < bounds.length; i++) expect(bounds[i]!.lower!.getTime()).toBe(bounds[i - 1]!.upper.getTime());
    expect(bounds[bounds.length - 1]!.upper.getTime()).toBeGreaterThanOrEqual(Date.now() + 5 * 7 * DAY);

    const newest = bounds[bounds.length - 1]!;
    expect(madeAudit).toContain(newest.partition);
    const keys = await owner.sql.query<{ key: string }>(
      `SELECT pg_get_constraintdef(oid) AS key FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u')`,
      [newest.partition],
    );
    expect(keys.rows).toEqual([{ key: 'PRIMARY KEY (id)' }]);
    // The runtime role writes an event of that week through the parent: it lands there, and stays append-only.
    await db.sql.query(
      `INSERT INTO audit_events (id, account_id, actor, action, summary, created_at) VALUES ('aud_ahead', 'acct_new', 'operator', 'key.created', '{}', $1)`,
      [new Date(newest.lower!.getTime() + 3_600_000)],
    );
    expect((await db.sql.query(`SELECT tableoid::regclass::text AS partition FROM audit_events WHERE id = 'aud_ahead'`)).rows).toEqual([
      { partition: newest.partition },
    ]);
    await expect(db.sql.query(`UPDATE ${newest.partition} SET action = 'key.revoked'`)).rejects.toMatchObject({ code: '42501' });
    await expect(db.sql.query(`DELETE FROM audit_events WHERE id = 'aud_ahead'`)).rejects.toThrow(/append-only/);
    // and may read the partition itself (pg_dump as the runtime role reads them one by one)
    expect((await db.sql.query(`SELECT count(*)::int AS n FROM ${newest.partition}`)).rows).toEqual([{ n: 1 }]);
  });

  it('when a week is wholly past AUDIT_RETENTION_DAYS, then it is dropped whole and the disk shrinks by it; the week at the edge loses only its expired events', async () => {
    const [legacy, week1, week2] = await partitionBounds(db, 'audit_events');
    const cutover = legacy!.upper.getTime();
    // week2 holds an event on its first day and one on its last; a retention of 7 days measured at week2's middle
    // plus 7 days: legacy and week1 are wholly past it, week2 only in part.
    const at = (t: number, id: string) =>
      owner.sql.query(
        `INSERT INTO audit_events (id, account_id, actor, action, summary, created_at) VALUES ($1, 'acct_ret', 'operator', 'key.created', '{}', $2)`,
        [id, new Date(t)],
      );
    await at(week2!.lower!.getTime() + 3_600_000, 'aud_edge_old');
    await at(week2!.upper.getTime() - 3_600_000, 'aud_edge_young');
    const size = (name: string) =>
      owner.sql
        .query<{ bytes: string }>(`SELECT pg_total_relation_size($1::regclass)::bigint AS bytes`, [name])
        .then((r) => Number(r.rows[0]!.bytes));
    const legacyBytes = await size('audit_events_legacy');
    expect(legacyBytes).toBeGreaterThan(20_000 * 200);
    const before = await treeBytes(db);
    const now = new Date(week2!.lower!.getTime() + 3.5 * DAY + 7 * DAY);

    // Two purges at once, as every API process runs one, both past their look at the partitions and waiting for the
    // lock a reader holds: each week is dropped once, by one of them, and neither fails.
    const reader = await owner.sql.connect();
    await reader.query('BEGIN');
    await reader.query('LOCK TABLE audit_events IN ACCESS SHARE MODE');
    const both = Promise.all([purgeAuditEvents(db, 7, { now }), purgeAuditEvents(db, 7, { now })]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const waiting = await owner.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%drop_partition_past%' AND datname = current_database()`,
    );
    await reader.query('COMMIT');
    reader.release();
    const [a, b] = await both;
    expect(waiting.rows).toEqual([{ n: 2 }]);
    expect([...a.partitions, ...b.partitions].sort()).toEqual(['audit_events_legacy', week1!.partition].sort());
    expect(a.events + b.events).toBe(1);
    expect([a.lockTimedOut, b.lockTimedOut]).toEqual([false, false]);
    expect(await treeBytes(db)).toBeLessThanOrEqual(before - legacyBytes);
    expect((await partitionBounds(db, 'audit_events'))[0]!.partition).toBe(week2!.partition);
    const left = await db.sql.query<{ id: string }>(`SELECT id FROM audit_events WHERE account_id = 'acct_ret' ORDER BY id`);
    expect(left.rows).toEqual([{ id: 'aud_edge_young' }]);
    expect(cutover).toBe(week1!.lower!.getTime());

    // Run again: nothing more is due.
    expect(await purgeAuditEvents(db, 7, { now })).toEqual({ events: 0, partitions: [], lockTimedOut: false });
  });
});

import { randomBytes } from 'node:crypto';
import { newWebhookSecret } from '@leadgen/domain';
import {
  createAccount,
  createDatabase,
  createPingDelivery,
  createWebhookEndpoint,
  deleteAccount,
  dropDatabase,
  ensureWeeklyPartitions,
  findWebhookDelivery,
  listWebhookDeliveries,
  loadDeliveryForAttempt,
  migrate,
  migrateBefore,
  partitionBounds,
  purgeWebhookDeliveries,
  recordWebhookAttempt,
  retryWebhookDelivery,
  type Database,
} from '../src';
import { scratchDatabaseUrls } from '../../../test/runtime-role';

// webhook_deliveries and webhook_attempts partitioned by the delivery's week (decision 053): the online migration of
// a database that holds deliveries, with the service (the release before) reading, retrying and attempting beside it;
// a delivery found by its id alone after it; the weeks ahead made by the runtime role with their keys and foreign
// key; retention that drops whole weeks with their attempts and never one holding a pending delivery; an account's
// deletion that deletes its deliveries in every week and no other account's. On a database of its own.
const PARTITIONING = '20261203000000_partitioned_webhook_deliveries';
const CHANGED_FUNCTIONS = ['drop_partition_past', 'ensure_weekly_partitions', 'purge_account_rows'];
const DAY = 86_400_000;

// Every seeded delivery's and attempt's columns as written, in one digest each (delivery_created_at is new).
const DELIVERIES = `SELECT count(*)::int AS n, md5(string_agg(id || '|' || account_id || '|' || endpoint_id || '|' || event_type || '|' || status || '|' ||
  attempts || '|' || round_attempts || '|' || next_attempt_at || '|' || COALESCE(delivered_at::text, '') || '|' || created_at || '|' || updated_at,
  ',' ORDER BY id)) AS digest FROM webhook_deliveries WHERE id LIKE 'msg_old%'`;
const ATTEMPTS = `SELECT count(*)::int AS n, md5(string_agg(id || '|' || delivery_id || '|' || attempt || '|' || url || '|' || started_at || '|' ||
  COALESCE(response_status::text, '') || '|' || latency_ms || '|' || COALESCE(response_excerpt, '') || '|' || succeeded, ',' ORDER BY id)) AS digest
  FROM webhook_attempts WHERE delivery_id LIKE 'msg_old%'`;

// The release before's statement for an attempt (webhook-attempts.ts before this change): no delivery_created_at.
const OLD_RECORD_ATTEMPT = `WITH d AS (
    UPDATE webhook_deliveries SET attempts = attempts + 1, round_attempts = round_attempts + 1, status = $2::"WebhookDeliveryStatus",
      next_attempt_at = now(), delivered_at = now(), updated_at = now()
    WHERE id = $1 AND status = 'pending'
    RETURNING id, attempts, endpoint_id
  ), a AS (
    INSERT INTO webhook_attempts (delivery_id, attempt, url, started_at, response_status, latency_ms, response_excerpt, error, succeeded)
    SELECT d.id, d.attempts, 'https://hooks.example.com/x', now(), 200, 5, 'ok', NULL, true FROM d
  )
  SELECT count(*)::int AS recorded FROM d`;

// The release before's listing (webhook-delivery-listing.ts before this change): an endpoint's newest deliveries, each
// with its attempts' numbers.
const OLD_LIST = `SELECT d.id, COALESCE((SELECT json_agg(a.attempt ORDER BY a.attempt) FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]') AS attempts
  FROM webhook_deliveries d WHERE d.endpoint_id = $1 ORDER BY d.created_at DESC, d.id DESC LIMIT 20`;

const treeBytes = (db: Database) =>
  db.sql
    .query<{ bytes: string }>(
      `SELECT sum(pg_total_relation_size(relid))::bigint AS bytes FROM (
         SELECT relid FROM pg_partition_tree('webhook_deliveries') UNION ALL SELECT relid FROM pg_partition_tree('webhook_attempts')) t`,
    )
    .then((r) => Number(r.rows[0]!.bytes));

const ok = {
  url: 'https://hooks.example.com/x',
  startedAt: new Date(),
  responseStatus: 500,
  latencyMs: 7,
  responseExcerpt: 'no',
  error: null,
  succeeded: false,
};

describe('partitioned webhook deliveries', () => {
  const scratch = scratchDatabaseUrls(`${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_hooks_${randomBytes(3).toString('hex')}`);
  let db: Database;
  let owner: Database;
  let accountId: string;
  let endpointId: string;
  afterAll(async () => {
    await db?.$disconnect();
    await owner?.$disconnect();
    await dropDatabase(scratch.ownerUrl);
  });

  const endpointOf = async (account: string) =>
    (await createWebhookEndpoint(db, account, {
      url: 'https://hooks.example.com/x',
      events: ['job.completed'],
      description: null,
      secret: newWebhookSecret(),
    }))!.id;
  const deliveryAt = async (account: string, endpoint: string, id: string, at: number, status = 'failed') => {
    await owner.sql.query(
      `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_type, status, created_at) VALUES ($1, $2, $3, 'ping', $4::"WebhookDeliveryStatus", $5)`,
      [id, account, endpoint, status, new Date(at)],
    );
    return id;
  };
  const partitionOf = async (table: string, column: string, id: string) =>
    (await owner.sql.query<{ p: string }>(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE ${column} = $1`, [id])).rows.map(
      (r) => r.p,
    );

  it('when the migration runs while the release before lists, retries and attempts deliveries, then none fails and every delivery and attempt is kept', async () => {
    await migrateBefore(scratch.ownerUrl, PARTITIONING, {
      newFunctions: [],
      changedFunctions: CHANGED_FUNCTIONS,
      runtimeRole: scratch.runtimeRole,
    });
    db = createDatabase(scratch.runtimeUrl, { poolSize: 6 });
    owner = createDatabase(scratch.ownerUrl, { poolSize: 2 });
    accountId = (await createAccount(db, 'hooks')).id;
    endpointId = await endpointOf(accountId);
    const writerEndpoint = await endpointOf(accountId);

    // 20,000 deliveries over the last 100 days, each with two attempts; one in a thousand still pending.
    await owner.sql.query(
      `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_type, status, attempts, round_attempts, next_attempt_at, delivered_at, created_at, updated_at)
       SELECT 'msg_old' || lpad(g::text, 25, '0'), $1, $2, 'job.completed',
              (CASE WHEN g % 1000 = 0 THEN 'pending' WHEN g % 3 = 0 THEN 'failed' ELSE 'succeeded' END)::"WebhookDeliveryStatus", 2, 2,
              now() - (g * interval '432 seconds') + interval '1 hour', CASE WHEN g % 3 <> 0 THEN now() - (g * interval '432 seconds') END,
              now() - (g * interval '432 seconds'), now() - (g * interval '432 seconds')
       FROM generate_series(1, 20000) g`,
      [accountId, endpointId],
    );
    await owner.sql.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, url, started_at, response_status, latency_ms, response_excerpt, succeeded)
       SELECT d.id, n, 'https://hooks.example.com/x', d.created_at + n * interval '1 second', 500, 40, repeat('y', 100), false
       FROM webhook_deliveries d, generate_series(1, 2) n`,
    );
    const before = { deliveries: (await owner.sql.query(DELIVERIES)).rows[0], attempts: (await owner.sql.query(ATTEMPTS)).rows[0] };
    expect(before.attempts).toMatchObject({ n: 40_000 });
    const firstPage = (await db.sql.query<{ id: string; attempts: number[] }>(OLD_LIST, [endpointId])).rows;
    expect(firstPage.map((d) => d.attempts)).toEqual(Array(20).fill([1, 2]));
    const failedOld = 'msg_old' + '3'.padStart(25, '0');

    // The release before, all along: a reader lists the endpoint and looks deliveries up by id, a writer makes pings
    // and records their attempts as it did, a retrier sends a failed one again and again.
    let running = true;
    const failures: unknown[] = [];
    const seen = new Set<number>();
    const written: string[] = [];
    let retries = 0;
    const loop = (body: () => Promise<void>) =>
      (async () => {
        while (running) {
          try {
            await body();
          } catch (error) {
            failures.push(error);
          }
        }
      })();
    const service = [
      loop(async () => {
        const { rows } = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [
          endpointId,
        ]);
        seen.add(rows[0]!.n);
        if ((await db.sql.query(OLD_LIST, [endpointId])).rowCount !== 20) throw new Error('a short page');
        const byId = await db.sql.query(`SELECT id FROM webhook_deliveries WHERE id = $1`, ['msg_old' + '7'.padStart(25, '0')]);
        if (byId.rowCount !== 1) throw new Error('not found by id');
      }),
      loop(async () => {
        const id = (await createPingDelivery(db, accountId, writerEndpoint))!;
        const { rows } = await db.sql.query<{ recorded: number }>(OLD_RECORD_ATTEMPT, [id, 'succeeded']);
        if (rows[0]!.recorded !== 1) throw new Error('attempt not recorded');
        written.push(id);
      }),
      loop(async () => {
        await db.sql.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [failedOld]);
        const retried = await db.sql.query(
          `UPDATE webhook_deliveries d SET status = 'pending', round_attempts = 0, next_attempt_at = now(), delivered_at = NULL, updated_at = now()
           WHERE d.id = $1 AND d.endpoint_id = $2 AND d.status <> 'pending'`,
          [failedOld, endpointId],
        );
        if (retried.rowCount !== 1) throw new Error('not retried');
        retries += 1;
      }),
    ];
    const result = await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
    running = false;
    await Promise.all(service);
    expect(result.applied[0]).toBe(PARTITIONING);
    expect(failures).toEqual([]);
    expect([...seen]).toEqual([20_000]);
    expect(written.length).toBeGreaterThan(0);
    expect(retries).toBeGreaterThan(0);

    // Both heaps are <table>_legacy now, attached whole, from MINVALUE to the same Monday, one to two weeks on.
    const [legacy, ...weeks] = await partitionBounds(db, 'webhook_deliveries');
    const [attemptsLegacy, ...attemptWeeks] = await partitionBounds(db, 'webhook_attempts');
    expect(legacy).toMatchObject({ partition: 'webhook_deliveries_legacy', lower: null });
    expect(attemptsLegacy).toMatchObject({ partition: 'webhook_attempts_legacy', lower: null, upper: legacy!.upper });
    expect(legacy!.upper.getUTCDay()).toBe(1);
    expect(legacy!.upper.getTime()).toBeGreaterThan(Date.now() + 7 * DAY);
    expect(weeks.map((w) => w.upper)).toEqual(attemptWeeks.map((w) => w.upper));
    expect(weeks.length).toBe(2);

    // Every delivery and attempt as it was but the retried one; the writer's all there, each with its attempt.
    const after = { deliveries: (await owner.sql.query(DELIVERIES)).rows[0], attempts: (await owner.sql.query(ATTEMPTS)).rows[0] };
    expect(after.attempts).toEqual(before.attempts);
    expect(after.deliveries).toMatchObject({ n: 20_000 });
    const mine = await owner.sql.query<{ n: number; a: number }>(
      `SELECT count(*)::int AS n, sum((SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id))::int AS a FROM webhook_deliveries d WHERE d.id = ANY($1)`,
      [written],
    );
    expect(mine.rows).toEqual([{ n: written.length, a: written.length }]);
    // The seeded attempts carry their delivery's created_at (the backfill); those the writer made after it -infinity.
    const keys = await owner.sql.query<{ wrong: number }>(
      `SELECT count(*)::int AS wrong FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE a.delivery_created_at <> d.created_at AND (a.delivery_created_at <> '-infinity' OR a.delivery_id LIKE 'msg_old%')`,
    );
    expect(keys.rows).toEqual([{ wrong: 0 }]);
    // This release's listing answers the same page, each delivery with its two attempts, and so does the release before's.
    const page = await listWebhookDeliveries(db, endpointId, { limit: 20 });
    expect(page.map((d) => ({ id: d.id, attempts: d.attempts.map((a) => a.attempt) }))).toEqual(firstPage);
    expect((await db.sql.query(OLD_LIST, [endpointId])).rows).toEqual(firstPage);
    expect(page.every((d) => d.attempts.length === 2)).toBe(true);
    // The writer's listing shows each attempt it made (-infinity or not).
    const theirs = await listWebhookDeliveries(db, writerEndpoint, { limit: 100 });
    expect(theirs.every((d) => d.attempts.length === 1)).toBe(true);
  }, 300_000);

  it('when a delivery is in a week of its own, then it is found by its id alone, attempted, listed with its attempts and retried', async () => {
    const [, week1] = await partitionBounds(db, 'webhook_deliveries');
    const id = await deliveryAt(
      accountId,
      endpointId,
      `msg_week1${randomBytes(8).toString('hex')}`,
      week1!.lower!.getTime() + DAY,
      'pending',
    );
    expect(await partitionOf('webhook_deliveries', 'id', id)).toEqual([week1!.partition]);
    const loaded = await loadDeliveryForAttempt(db, id);
    expect(loaded).toMatchObject({ id, status: 'pending', createdAt: new Date(week1!.lower!.getTime() + DAY) });
    expect(await recordWebhookAttempt(db, id, ok, { status: 'failed', nextAttemptAt: null, disableEndpoint: null })).toBe(true);
    expect(await partitionOf('webhook_attempts', 'delivery_id', id)).toEqual([week1!.partition.replace('deliveries', 'attempts')]);
    const found = await findWebhookDelivery(db, { endpointId }, id);
    expect(found).toMatchObject({ id, status: 'failed', attempts: [{ attempt: 1, responseStatus: 500 }] });
    expect(await retryWebhookDelivery(db, { endpointId }, id)).toMatchObject({ kind: 'retried', delivery: { id, status: 'pending' } });
    expect(
      await recordWebhookAttempt(
        db,
        id,
        { ...ok, succeeded: true, responseStatus: 200 },
        { status: 'succeeded', nextAttemptAt: null, disableEndpoint: null },
      ),
    ).toBe(true);
    expect((await findWebhookDelivery(db, { endpointId }, id))!.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    // an id is a delivery's in every week: the same id again in another week is refused by no key of the parent, but
    // the ids are random; the listing by id finds one
    expect((await db.sql.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = $1`, [id])).rows).toEqual([{ n: 1 }]);
  });

  it('when the runtime role makes the weeks ahead, then each has its keys and foreign key, takes its rows, and cascades', async () => {
    const made = await ensureWeeklyPartitions(db, 5);
    expect(made.filter((n) => n.startsWith('webhook_deliveries_')).length).toBeGreaterThan(0);
    expect(made.filter((n) => n.startsWith('webhook_attempts_')).length).toBe(
      made.filter((n) => n.startsWith('webhook_deliveries_')).length,
    );
    expect(await ensureWeeklyPartitions(db, 5)).toEqual([]);
    const bounds = await partitionBounds(db, 'webhook_deliveries');
    for (let i = 1; i < bounds.length; i++) expect(bounds[i]!.lower!.getTime()).toBe(bounds[i - 1]!.upper.getTime());
    expect((await partitionBounds(db, 'webhook_attempts')).map((b) => b.upper)).toEqual(bounds.map((b) => b.upper));
    const newest = bounds[bounds.length - 1]!;
    const newestAttempts = newest.partition.replace('deliveries', 'attempts');
    const constraints = async (table: string) =>
      (
        await owner.sql.query<{ def: string }>(
          `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'f', 'c') AND conparentid = 0 ORDER BY 1`,
          [table],
        )
      ).rows.map((r) => r.def);
    expect(await constraints(newest.partition)).toEqual(['CHECK (((endpoint_id IS NULL) <> (url IS NULL)))', 'PRIMARY KEY (id)']);
    expect(await constraints(newestAttempts)).toEqual([
      `FOREIGN KEY (delivery_id) REFERENCES ${newest.partition}(id) ON UPDATE CASCADE ON DELETE CASCADE`,
      'PRIMARY KEY (id)',
      'UNIQUE (delivery_id, attempt)',
    ]);

    // The third newest week (the two newest are the deletion's, below): a delivery and its attempt, through the parents.
    const week = bounds[bounds.length - 3]!;
    const id = await deliveryAt(
      accountId,
      endpointId,
      `msg_ahead${randomBytes(8).toString('hex')}`,
      week.lower!.getTime() + 3_600_000,
      'pending',
    );
    expect(await recordWebhookAttempt(db, id, ok, { status: 'pending', nextAttemptAt: new Date(), disableEndpoint: null })).toBe(true);
    expect(await partitionOf('webhook_attempts', 'delivery_id', id)).toEqual([week.partition.replace('deliveries', 'attempts')]);
    // the key holds: no attempt of a delivery that is not there; the runtime role reads a partition itself
    await expect(
      db.sql.query(
        `INSERT INTO webhook_attempts (delivery_id, delivery_created_at, attempt, url, started_at, latency_ms, succeeded) VALUES ('msg_none', $1, 1, 'x', now(), 1, true)`,
        [week.lower],
      ),
    ).rejects.toMatchObject({ code: '23503' });
    expect((await db.sql.query(`SELECT count(*)::int AS n FROM ${week.partition.replace('deliveries', 'attempts')}`)).rows).toEqual([
      { n: 1 },
    ]);
    // and a delivery's deletion takes its attempts
    await db.sql.query(`DELETE FROM webhook_deliveries WHERE id = $1`, [id]);
    expect((await db.sql.query(`SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = $1`, [id])).rows).toEqual([{ n: 0 }]);
  });

  it("when an account is deleted, then its deliveries go from every week and another account's at the same place in another week stay", async () => {
    const bounds = await partitionBounds(db, 'webhook_deliveries');
    const [older, newest] = bounds.slice(-2);
    const goneAccount = (await createAccount(db, 'gone')).id;
    const keptAccount = (await createAccount(db, 'kept')).id;
    // each the first row of its (empty) week: the same ctid, (0,1)
    const gone = await deliveryAt(goneAccount, await endpointOf(goneAccount), 'msg_gone_newest', newest!.lower!.getTime() + 3_600_000);
    const kept = await deliveryAt(keptAccount, await endpointOf(keptAccount), 'msg_kept_older', older!.lower!.getTime() + 3_600_000);
    const ctids = await owner.sql.query<{ ctid: string }>(`SELECT ctid::text FROM webhook_deliveries WHERE id = ANY($1)`, [[gone, kept]]);
    expect(ctids.rows).toEqual([{ ctid: '(0,1)' }, { ctid: '(0,1)' }]);
    expect(await deleteAccount(db, goneAccount)).toMatchObject({ outcome: 'deleted' });
    expect((await owner.sql.query<{ id: string }>(`SELECT id FROM webhook_deliveries WHERE id = ANY($1)`, [[gone, kept]])).rows).toEqual([
      { id: kept },
    ]);
  });

  it('when weeks are wholly past WEBHOOK_DELIVERY_RETENTION_DAYS, then each is dropped whole with its attempts but one holding a pending delivery, whose finished ones go row by row', async () => {
    const [, week1, week2] = await partitionBounds(db, 'webhook_deliveries');
    // the seeded pending deliveries' rounds have ended; week1 holds a pending one and a failed one
    await owner.sql.query(`UPDATE webhook_deliveries_legacy SET status = 'failed' WHERE status = 'pending'`);
    const pending = [await deliveryAt(accountId, endpointId, 'msg_w1_pending', week1!.lower!.getTime() + DAY, 'pending')];
    await recordWebhookAttempt(db, pending[0]!, ok, { status: 'pending', nextAttemptAt: new Date(), disableEndpoint: null });
    expect(await partitionOf('webhook_attempts', 'delivery_id', pending[0]!)).toEqual([week1!.partition.replace('deliveries', 'attempts')]);
    const w1Failed = await deliveryAt(accountId, endpointId, 'msg_w1_failed', week1!.lower!.getTime() + 2 * DAY);
    const edgeOld = await deliveryAt(accountId, endpointId, 'msg_edge_old', week2!.lower!.getTime() + 3_600_000);
    const edgeYoung = await deliveryAt(accountId, endpointId, 'msg_edge_young', week2!.upper.getTime() - 3_600_000);
    const legacyBytes = await owner.sql
      .query<{ bytes: string }>(
        `SELECT (pg_total_relation_size('webhook_deliveries_legacy') + pg_total_relation_size('webhook_attempts_legacy'))::bigint AS bytes`,
      )
      .then((r) => Number(r.rows[0]!.bytes));
    expect(legacyBytes).toBeGreaterThan(20_000 * 200);
    const before = await treeBytes(db);
    // 7 days measured at week2's middle plus 7 days: legacy and week1 wholly past it, week2 in part.
    const now = new Date(week2!.lower!.getTime() + 3.5 * DAY + 7 * DAY);

    const first = await purgeWebhookDeliveries(db, 7, { now });
    // row by row: week1's failed one and the one the test above attempted (succeeded), and week2's older one
    expect(first).toEqual({ partitions: ['webhook_deliveries_legacy'], deliveries: 3, lockTimedOut: false });
    expect(await treeBytes(db)).toBeLessThanOrEqual(before - legacyBytes);
    expect((await partitionBounds(db, 'webhook_attempts'))[0]!.partition).toBe(week1!.partition.replace('deliveries', 'attempts'));
    const left = async () =>
      (
        await db.sql.query<{ id: string }>(`SELECT id FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id`, [
          [...pending, w1Failed, edgeOld, edgeYoung],
        ])
      ).rows.map((r) => r.id);
    expect(await left()).toEqual([...pending, edgeYoung].sort());

    // Its round ended: the week goes whole, with its attempts; then nothing more is due.
    await owner.sql.query(`UPDATE webhook_deliveries SET status = 'succeeded' WHERE id = $1`, [pending[0]]);
    expect(await purgeWebhookDeliveries(db, 7, { now })).toEqual({ partitions: [week1!.partition], deliveries: 0, lockTimedOut: false });
    expect((await partitionBounds(db, 'webhook_attempts'))[0]!.partition).toBe(week2!.partition.replace('deliveries', 'attempts'));
    expect(await left()).toEqual([edgeYoung]);
    expect(await purgeWebhookDeliveries(db, 7, { now })).toEqual({ partitions: [], deliveries: 0, lockTimedOut: false });
  });
});

// The move beside statements that take the two tables in the service's order, and a job before its delivery (a
// settlement): each section takes its locks first and gives way within 200 ms (under deadlock_timeout) rather than
// hold one table while it waits for another, so neither the service's statement nor the migration ends in a deadlock.
describe('the move of webhook deliveries beside transactions that hold their tables', () => {
  const scratch = scratchDatabaseUrls(`${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_hooklk_${randomBytes(3).toString('hex')}`);
  let db: Database;
  let owner: Database;
  afterAll(async () => {
    await db?.$disconnect();
    await owner?.$disconnect();
    await dropDatabase(scratch.ownerUrl);
  });

  /** until the migrating session waits for a lock (it took the first of those it needs, or is asking for one) */
  let ended: string | null = null;
  const migrationWaits = async () => {
    for (let i = 0; i < 200; i++) {
      if (ended !== null) throw new Error(`the migration ended before: ${ended}`);
      const { rows } = await owner.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%webhook%'`,
      );
      if (rows[0]!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the migration never waited');
  };

  it('when a reader holds the deliveries and then reads the attempts, and a settlement holds jobs and then writes a delivery, then both and the migration succeed', async () => {
    await migrateBefore(scratch.ownerUrl, PARTITIONING, {
      newFunctions: [],
      changedFunctions: CHANGED_FUNCTIONS,
      runtimeRole: scratch.runtimeRole,
    });
    db = createDatabase(scratch.runtimeUrl, { poolSize: 4 });
    owner = createDatabase(scratch.ownerUrl, { poolSize: 2 });
    const accountId = (await createAccount(db, 'locks')).id;
    const endpointId = (await createWebhookEndpoint(db, accountId, {
      url: 'https://hooks.example.com/x',
      events: ['job.completed'],
      description: null,
      secret: newWebhookSecret(),
    }))!.id;
    await createPingDelivery(db, accountId, endpointId);

    // A reader in a transaction: the deliveries first; the first section asks for both tables meanwhile.
    const reader = await db.sql.connect();
    const settlement = await db.sql.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM webhook_deliveries');
      // A settlement holds jobs (it writes the job, then its deliveries) all along the online sections.
      await settlement.query('BEGIN');
      await settlement.query(`UPDATE jobs SET updated_at = now() WHERE id = 'job_none'`);
      const migrating = migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
      const outcome = migrating.then(
        () => (ended = 'migrated'),
        (error: Error) => (ended = error.message),
      );
      await migrationWaits();
      // then the attempts, which the first section would hold if it took them before the deliveries
      await reader.query('SELECT count(*) FROM webhook_attempts');
      await reader.query('COMMIT');

      // The last section waits for jobs (its foreign keys): the settlement writes its delivery, then commits.
      await migrationWaits();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await settlement.query(`INSERT INTO webhook_deliveries (account_id, endpoint_id, event_type) VALUES ($1, $2, 'ping')`, [
        accountId,
        endpointId,
      ]);
      await settlement.query('COMMIT');
      expect(await outcome).toBe('migrated');
    } finally {
      await reader.query('ROLLBACK').catch(() => undefined);
      await settlement.query('ROLLBACK').catch(() => undefined);
      reader.release();
      settlement.release();
    }
    expect((await owner.sql.query(`SELECT relkind FROM pg_class WHERE oid = 'webhook_deliveries'::regclass`)).rows).toEqual([
      { relkind: 'p' },
    ]);
    expect((await db.sql.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId])).rows).toEqual([
      { n: 2 },
    ]);
  }, 120_000);
});

// The online move of an existing table into weekly partitions, timed at a volume: leads (decision 046), audit_events
// or webhook_deliveries with webhook_attempts (decision 053). A database left at the migration before it, N rows written as that release wrote them, then the
// migration's online sections one by one and the migrator's main transaction, with a reader and a writer running all
// along: the longest each waited is what the service would have felt. leads: the reader reads one job's leads, the
// writer updates a job row; audit_events: the reader lists an account's newest events, the writer records an event;
// webhook_deliveries (two attempts each): the reader lists an endpoint's newest deliveries with their attempts and
// looks one up by id, the writer records a delivery and its attempt as the release before did.
// `npx tsx apps/bench/src/partition-migration.ts [rows] [leads|audit_events|webhook_deliveries]` (default 1,000,000 leads), against
// DATABASE_URL's server.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { dropDatabase, migrate, migrateBefore, onlineSteps, outsideTransaction, readMigrations } from '@leadgen/db';

interface Move {
  migration: string;
  /** the function files that migration's release added (absent from the database before it) */
  newFunctions: string[];
  /** the function files that release had in another text (migrateBefore) */
  changedFunctions?: string[];
  seed(client: Client, rows: number): Promise<void>;
  /** the i-th statement of the reader and of the writer beside the move, on a table seeded with `rows` */
  read(i: number, rows: number): [string, unknown[]];
  write(i: number, rows: number): [string, unknown[]];
  /** the tables whose size is reported (the moved one first) */
  tables?: string[];
  /** counts the seeded rows after the move */
  kept?: string;
}

/** the i-th of the jobs holding `leads` leads, 25 each */
const jobId = (i: number, leads: number) => `job_move${String((i % Math.ceil(leads / 25)) + 1).padStart(16, '0')}`;

const MOVES: Record<'leads' | 'audit_events' | 'webhook_deliveries', Move> = {
  leads: {
    migration: '20261201000000_partitioned_leads',
    newFunctions: ['lead_partition_bounds', 'ensure_lead_partitions', 'drop_expired_lead_partition'],
    async seed(client, leads) {
      const jobs = Math.ceil(leads / 25);
      await client.query(`INSERT INTO accounts (id, name) VALUES ('acc_move', 'move')`);
      await client.query(
        `INSERT INTO jobs (id, account_id, result_set_id, source, status, request, requested_count, delivered_count, provider,
                           credits_reserved, credits_charged, created_at, started_at, finished_at)
         SELECT 'job_move' || lpad(g::text, 16, '0'), 'acc_move', 'rs_move' || lpad(g::text, 17, '0'), 'google_maps', 'COMPLETE',
                '{"source":"google_maps","category":"dentist","state":"US","maxResults":25}'::jsonb, 25, 25, 'sandbox', 0, 0,
                now() - interval '300 days' + g * interval '10 minutes', now(), now()
         FROM generate_series(1, $1::int) g`,
        [jobs],
      );
      await client.query(
        `INSERT INTO leads (job_id, position, dedup_key, data)
         SELECT 'job_move' || lpad(j::text, 16, '0'), p, 'place-' || j || '-' || p, jsonb_build_object(
           'source', 'google_maps', 'businessName', 'Studio ' || j || '-' || p, 'email', 'info' || p || '@studio' || j || '.example',
           'phone', '+1 512-' || lpad((j % 1000)::text, 3, '0') || '-' || lpad(p::text, 4, '0'),
           'website', 'https://www.studio' || j || '.example/contact', 'address', p || ' Congress Ave, Austin, TX 78701',
           'reviewScore', 4.5, 'categories', jsonb_build_array('dentist'),
           'socialProfiles', jsonb_build_object('facebook', null, 'instagram', null, 'linkedin', 'https://www.linkedin.com/in/p-' || j || '-' || p))
         FROM generate_series(1, $1::int) j, generate_series(0, 24) p`,
        [jobs],
      );
    },
    read: (i, leads) => ['SELECT data FROM leads WHERE job_id = $1 ORDER BY position', [jobId(i * 7919, leads)]],
    write: (i, leads) => ['UPDATE jobs SET updated_at = now() WHERE id = $1', [jobId(i * 104_729, leads)]],
  },
  audit_events: {
    migration: '20261202000000_partitioned_audit_events',
    newFunctions: ['drop_partition_past'],
    changedFunctions: ['audit_events_append_only'],
    async seed(client, events) {
      // 400 days of events (AUDIT_RETENTION_DAYS' default) over 1,000 accounts, an export's summary each
      await client.query(
        `INSERT INTO audit_events (id, account_id, actor, action, request_id, summary, created_at)
         SELECT 'aud_move' || lpad(g::text, 16, '0'), 'acc_move' || (g % 1000), 'key_move', 'leads.exported', 'req_' || g,
                jsonb_build_object('selection', jsonb_build_object('jobId', 'job_' || g), 'format', 'csv', 'leads', g % 500, 'finished', true),
                now() - (g * (interval '400 days' / $1::int))
         FROM generate_series(1, $1::int) g`,
        [events],
      );
    },
    read: (i) => [
      `SELECT id FROM audit_events WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20`,
      [`acc_move${(i * 7919) % 1000}`],
    ],
    write: (i) => [
      `INSERT INTO audit_events (id, account_id, actor, action, summary) VALUES ('aud_beside' || $1, 'acc_move1', 'key_move', 'key.created', '{}')`,
      [i],
    ],
    kept: `SELECT count(*)::int AS n FROM audit_events WHERE id LIKE 'aud_move%'`,
  },
  webhook_deliveries: {
    migration: '20261203000000_partitioned_webhook_deliveries',
    newFunctions: [],
    changedFunctions: ['drop_partition_past', 'ensure_weekly_partitions', 'purge_account_rows'],
    tables: ['webhook_deliveries', 'webhook_attempts'],
    async seed(client, deliveries) {
      // 90 days of job events over 100 endpoints of one account, two attempts each (a failure, then a success)
      await client.query(`INSERT INTO accounts (id, name) VALUES ('acc_move', 'move')`);
      await client.query(
        `INSERT INTO webhook_endpoints (id, account_id, url, events, secret)
         SELECT 'whe_move' || g, 'acc_move', 'https://hooks.example.com/' || g, '["job.completed"]', 'sealed' FROM generate_series(0, 99) g`,
      );
      await client.query(
        `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_type, status, attempts, round_attempts, delivered_at, created_at, updated_at)
         SELECT 'msg_move' || lpad(g::text, 24, '0'), 'acc_move', 'whe_move' || (g % 100), 'job.completed', 'succeeded', 2, 2,
                now() - (g * (interval '90 days' / $1::int)), now() - (g * (interval '90 days' / $1::int)), now() - (g * (interval '90 days' / $1::int))
         FROM generate_series(1, $1::int) g`,
        [deliveries],
      );
      await client.query(
        `INSERT INTO webhook_attempts (delivery_id, attempt, url, started_at, response_status, latency_ms, response_excerpt, succeeded)
         SELECT d.id, n, 'https://hooks.example.com/x', d.created_at, CASE n WHEN 1 THEN 503 ELSE 200 END, 120, '{"ok":' || (n = 2) || '}', n = 2
         FROM webhook_deliveries d, generate_series(1, 2) n ORDER BY d.created_at, n`,
      );
      await client.query('VACUUM ANALYZE webhook_attempts');
    },
    read: (i, deliveries) =>
      i % 2 === 0
        ? [
            `SELECT d.id, (SELECT json_agg(a.attempt ORDER BY a.attempt) FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempts
             FROM webhook_deliveries d WHERE d.endpoint_id = $1 ORDER BY d.created_at DESC, d.id DESC LIMIT 20`,
            [`whe_move${(i * 7919) % 100}`],
          ]
        : [
            `SELECT d.id, d.status, (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempts FROM webhook_deliveries d WHERE d.id = $1`,
            [`msg_move${String(((i * 7919) % deliveries) + 1).padStart(24, '0')}`],
          ],
    write: () => [
      `WITH d AS (INSERT INTO webhook_deliveries (account_id, endpoint_id, event_type) VALUES ('acc_move', 'whe_move1', 'ping') RETURNING id)
       INSERT INTO webhook_attempts (delivery_id, attempt, url, started_at, response_status, latency_ms, succeeded)
       SELECT id, 1, 'https://hooks.example.com/1', now(), 200, 30, true FROM d`,
      [],
    ],
    kept: `SELECT count(*)::int AS n FROM webhook_deliveries WHERE id LIKE 'msg_move%'`,
  },
};

async function main(): Promise<void> {
  const rows = Number(process.argv[2] ?? 1_000_000);
  const table = (process.argv[3] ?? 'leads') as keyof typeof MOVES;
  const move = MOVES[table];
  if (!move) throw new Error(`no such partitioned table: ${table} (leads, audit_events or webhook_deliveries)`);
  const url = new URL(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/leadgen');
  url.pathname = `/leadgen_partition_move_${randomBytes(3).toString('hex')}`;
  const dbUrl = url.toString();
  const client = new Client({ connectionString: dbUrl });
  try {
    await migrateBefore(dbUrl, move.migration, { newFunctions: move.newFunctions, changedFunctions: move.changedFunctions });
    await client.connect();
    const seedStart = performance.now();
    await move.seed(client, rows);
    await client.query(`VACUUM ANALYZE ${table}`);
    await client.query('CHECKPOINT');
    const sizes: string[] = [];
    for (const t of move.tables ?? [table]) {
      const { rows: found } = await client.query<{ n: string; mb: string }>(
        `SELECT (SELECT count(*) FROM ${t})::text AS n, (pg_total_relation_size($1::regclass) / 1048576)::int AS mb`,
        [t],
      );
      sizes.push(`${Number(found[0]!.n).toLocaleString('en')} rows of ${t}, ${found[0]!.mb} MB with indexes`);
    }
    console.log(`${sizes.join('; ')}: written in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

    // The service beside it: a reader and a writer, each one statement at a time, their longest waits per phase.
    let phase = 'before';
    let running = true;
    const longest = new Map<string, { read: number; write: number; n: number }>();
    const note = (kind: 'read' | 'write', ms: number) => {
      const at = longest.get(phase) ?? { read: 0, write: 0, n: 0 };
      at[kind] = Math.max(at[kind], ms);
      at.n += 1;
      longest.set(phase, at);
    };
    const loop = async (kind: 'read' | 'write', sql: (i: number) => [string, unknown[]]) => {
      const c = new Client({ connectionString: dbUrl });
      await c.connect();
      for (let i = 0; running; i++) {
        const [text, values] = sql(i);
        const start = performance.now();
        await c.query(text, values);
        note(kind, performance.now() - start);
      }
      await c.end();
    };
    const beside = Promise.all([loop('read', (i) => move.read(i, rows)), loop('write', (i) => move.write(i, rows))]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const sql = readMigrations().find((m) => m.name === move.migration)!.sql;
    const steps: string[] = [];
    for (const [index, section] of onlineSteps(sql).entries()) {
      phase = `online step ${index + 1}`;
      const start = performance.now();
      if (outsideTransaction(section)) {
        await client.query(section);
      } else {
        await client.query('BEGIN');
        await client.query(section);
        await client.query('COMMIT');
      }
      steps.push(`${phase}: ${(performance.now() - start).toFixed(0)} ms`);
    }
    phase = 'main transaction';
    const start = performance.now();
    await migrate(dbUrl);
    steps.push(`${phase} (the attach, then the function files): ${(performance.now() - start).toFixed(0)} ms`);
    phase = 'after';
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    running = false;
    await beside;
    for (const line of steps) console.log(`  ${line}`);
    for (const [at, w] of longest)
      console.log(`  ${at}: longest read ${w.read.toFixed(0)} ms, longest write ${w.write.toFixed(0)} ms (${w.n} statements)`);
    const kept = (await client.query<{ n: number }>(move.kept ?? `SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
    console.log(`  ${table} after: ${kept.toLocaleString('en')}${kept === rows ? ' (every one)' : ' (LOST SOME)'}`);
  } finally {
    await client.end().catch(() => undefined);
    await dropDatabase(dbUrl);
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

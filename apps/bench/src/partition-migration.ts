// The online move of an existing leads table into partitions (decision 046), timed at a volume: a database left at
// the migration before it, N leads written as that release wrote them, then the migration's online sections one by one
// and the migrator's main transaction, with a reader (one job's leads, by job_id) and a writer (an UPDATE of a job
// row) running all along: the longest each waited is what the service would have felt.
// `npx tsx apps/bench/src/partition-migration.ts [leads]` (default 1,000,000), against DATABASE_URL's server.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { dropDatabase, FUNCTIONS_DIR, migrate, MIGRATIONS_DIR, onlineSteps, readFunctionFiles, readMigrations } from '@leadgen/db';

const PARTITIONING = '20261201000000_partitioned_leads';
const NEW_FUNCTIONS = ['lead_partition_bounds', 'ensure_lead_partitions', 'drop_expired_lead_partition'];

async function main(): Promise<void> {
  const leads = Number(process.argv[2] ?? 1_000_000);
  const url = new URL(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/leadgen');
  url.pathname = `/leadgen_partition_move_${randomBytes(3).toString('hex')}`;
  const dbUrl = url.toString();
  const migrations = mkdtempSync(path.join(tmpdir(), 'leadgen-move-'));
  const functions = mkdtempSync(path.join(tmpdir(), 'leadgen-move-fn-'));
  const client = new Client({ connectionString: dbUrl });
  try {
    for (const m of readMigrations().filter((m) => m.name < PARTITIONING))
      cpSync(path.join(MIGRATIONS_DIR, m.name), path.join(migrations, m.name), { recursive: true });
    for (const f of readFunctionFiles().filter((f) => !NEW_FUNCTIONS.includes(f.name)))
      cpSync(path.join(FUNCTIONS_DIR, `${f.name}.sql`), path.join(functions, `${f.name}.sql`));
    await migrate(dbUrl, { migrationsDir: migrations, functionsDir: functions });
    await client.connect();
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
    const seedStart = performance.now();
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
    await client.query('VACUUM ANALYZE leads');
    await client.query('CHECKPOINT');
    const size = (await client.query<{ mb: string }>(`SELECT (pg_total_relation_size('leads') / 1048576)::int AS mb`)).rows[0]!.mb;
    console.log(
      `${leads.toLocaleString('en')} leads written in ${((performance.now() - seedStart) / 1000).toFixed(1)} s: ${size} MB with indexes`,
    );

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
    const id = (i: number) => `job_move${String((i % jobs) + 1).padStart(16, '0')}`;
    const beside = Promise.all([
      loop('read', (i) => ['SELECT data FROM leads WHERE job_id = $1 ORDER BY position', [id(i * 7919)]]),
      loop('write', (i) => ['UPDATE jobs SET updated_at = now() WHERE id = $1', [id(i * 104_729)]]),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const sql = readMigrations().find((m) => m.name === PARTITIONING)!.sql;
    const steps: string[] = [];
    for (const [index, section] of onlineSteps(sql).entries()) {
      phase = `online step ${index + 1}`;
      const start = performance.now();
      await client.query('BEGIN');
      await client.query(section);
      await client.query('COMMIT');
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
      console.log(`  ${at}: longest read ${w.read.toFixed(0)} ms, longest write to jobs ${w.write.toFixed(0)} ms (${w.n} statements)`);
    const kept = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM leads')).rows[0]!.n;
    console.log(`  leads after: ${kept.toLocaleString('en')}${kept === leads ? ' (every one)' : ' (LOST SOME)'}`);
  } finally {
    await client.end().catch(() => undefined);
    await dropDatabase(dbUrl);
    rmSync(migrations, { recursive: true });
    rmSync(functions, { recursive: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

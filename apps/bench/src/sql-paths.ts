// `npm run bench:sql`: the hot path's statements sent through Prisma ($queryRawUnsafe, the path
// TypedSQL's $queryRawTyped takes too) and through the pg pool Prisma's adapter holds, alternating
// in one run, on a database of its own. Prints CPU per statement in this process and wall time;
// it asserts nothing. The choice it informs is docs/decisions/011-hot-path-sql.md.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { loadConfig } from '@leadgen/config';
import {
  addSuppressions,
  commitPage,
  createAccount,
  createDatabase,
  insertJob,
  grantCredits,
  migrate,
  readJobView,
  type Database,
} from '@leadgen/db';
import type { GenerationRequest, Lead } from '@leadgen/domain';
import { newId } from '@leadgen/domain';

const { values: flags } = parseArgs({
  options: { statements: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' } },
});
const N = Number(flags.statements);
const ROUNDS = Number(flags.rounds);

type Runner = (sql: string, params: unknown[]) => Promise<unknown>;

async function measure(name: string, run: Runner, sql: string, params: (i: number) => unknown[], concurrency = 4) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < N) await run(sql, params(next++));
    }),
  );
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { name, perStatementCpuUs: (cpu.user + cpu.system) / N, perSecond: (N / wall) * 1000 };
}

async function main(): Promise<void> {
  const base = new URL(loadConfig(process.env).database.url);
  const name = `leadgen_sqlbench_${randomBytes(4).toString('hex')}`;
  const url = new URL(base);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  const db: Database = createDatabase(url.toString(), { poolSize: 4 });
  try {
    const account = await createAccount(db, 'sql-bench');
    await grantCredits(db, account.id, 1_000_000_000);
    const newJob = async (key: string, request: GenerationRequest) => {
      const created = await insertJob(db, {
        accountId: account.id,
        idempotencyKey: key,
        fingerprint: 'f',
        idempotencyTtlHours: 1,
        jobId: newId.job(),
        resultSetId: newId.resultSet(),
        request,
        creditsReserved: 200,
        share: 0,
      });
      if (created.kind !== 'created') throw new Error('job not created');
      return created.jobId;
    };
    const jobIds: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const created = await insertJob(db, {
        accountId: account.id,
        idempotencyKey: `k${i}`,
        fingerprint: 'f',
        idempotencyTtlHours: 1,
        jobId: newId.job(),
        resultSetId: newId.resultSet(),
        request: { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 100 },
        creditsReserved: 200,
        share: 0,
      });
      if (created.kind === 'created') jobIds.push(created.jobId);
    }
    // A read of the job row (the auth and poll shape), and an UPDATE ... RETURNING (the start/settle shape).
    const read = `SELECT id, status::text AS status, request, delivered_count, created_at FROM jobs WHERE id = $1`;
    const write = `UPDATE jobs SET updated_at = now() WHERE id = $1 RETURNING id, status::text AS status, request, delivered_count, created_at`;
    const params = (i: number) => [jobIds[i % jobIds.length]];
    const pool: Runner = (sql, p) => db.sql.query(sql, p);
    const prisma: Runner = (sql, p) => db.$queryRawUnsafe(sql, ...p);
    const rows: Array<Awaited<ReturnType<typeof measure>>> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      rows.push(await measure('read   via pg pool', pool, read, params));
      rows.push(await measure('read   via Prisma ', prisma, read, params));
      rows.push(
        await measure(
          'read   via Prisma model API (findUnique)',
          (_sql, p) => db.job.findUnique({ where: { id: p[0] as string } }),
          read,
          params,
        ),
      );
      rows.push(await measure('update via pg pool', pool, write, params));
      rows.push(await measure('update via Prisma ', prisma, write, params));
    }
    await readJobView(db, jobIds[0]!, null);

    // What excludeDelivered costs per page: 20 jobs over one area commit 10-lead pages one after
    // another (wall time per commit, mostly PostgreSQL's work); after the first job, the account
    // already has every lead, which an excluding job must check and skip one by one.
    const page = (round: number, n: number) =>
      Array.from({ length: 10 }, (_, i) => ({
        dedupKey: `place-${round}-${n * 10 + i}`,
        lead: { businessName: `B ${n * 10 + i}` } as unknown as Lead,
        // What a lead offers the suppression list: its domain, email and phone (none on the list here).
        matches: [
          { kind: 'domain' as const, value: `b${n * 10 + i}.example` },
          { kind: 'email' as const, value: `office@b${n * 10 + i}.example` },
          { kind: 'phone' as const, value: `+1512555${String(n * 10 + i).padStart(4, '0')}` },
        ],
      }));
    const pageCost = async (exclude: boolean, round: number) => {
      let spent = 0;
      let pages = 0;
      for (let job = 0; job < 20; job += 1) {
        const request: GenerationRequest = {
          source: 'google_maps',
          category: 'dentist',
          state: 'US',
          maxResults: 100,
          ...(exclude ? { excludeDelivered: true as const } : {}),
        };
        const id = await newJob(`page-${exclude}-${round}-${job}`, request);
        for (let n = 0; n < 10; n += 1) {
          const t0 = performance.now();
          await commitPage(db, id, page(round, n), String(n));
          spent += performance.now() - t0;
          pages += 1;
        }
      }
      return spent / pages;
    };
    const pageRows: Array<[string, number]> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      pageRows.push(['page commit, plain', await pageCost(false, round)]);
      pageRows.push(['page commit, excludeDelivered', await pageCost(true, round)]);
    }
    // The same pages for an account whose suppression list holds 100,000 entries.
    await addSuppressions(
      db,
      account.id,
      Array.from({ length: 100_000 }, (_, i) => ({ kind: 'email' as const, value: `person${i}@list.example` })),
    );
    for (let round = 0; round < ROUNDS; round += 1) {
      pageRows.push(['page commit, 100,000 suppressions', await pageCost(false, ROUNDS + round)]);
    }
    // The webhook path: its attempt read (a three-table join) sent inline, as webhook-attempts.ts does, and the
    // same query wrapped in a PL/pgSQL function made for this measurement only (its kept plan is what a
    // function would save). Wall time per statement, PostgreSQL's planning included (decision 017).
    const endpointId = `whep_${randomBytes(12).toString('hex')}`;
    await db.sql.query(
      `INSERT INTO webhook_endpoints (id, account_id, url, events, secret) VALUES ($1, $2, 'https://hooks.example.com/x', '["job.completed"]', 'whsec_x')`,
      [endpointId, account.id],
    );
    const { rows: deliveries } = await db.sql.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (account_id, endpoint_id, event_type) SELECT $1, $2, 'ping' FROM generate_series(1, 20) RETURNING id`,
      [account.id, endpointId],
    );
    const attemptRead = `SELECT d.id, d.account_id, d.endpoint_id, d.event_type, d.status::text AS status, COALESCE(e.url, d.url) AS url,
       COALESCE(e.secret, s.secret) AS secret,
       CASE WHEN COALESCE(e.previous_secret_expires_at, s.previous_secret_expires_at) > now() THEN COALESCE(e.previous_secret, s.previous_secret) END AS previous_secret,
       d.round_attempts, d.attempts, d.created_at, e.disabled_at IS NOT NULL AS disabled, e.failing_since, d.job_id
     FROM webhook_deliveries d
     LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
     LEFT JOIN account_webhook_secrets s ON d.endpoint_id IS NULL AND s.account_id = d.account_id
     WHERE d.id = $1`;
    await db.sql
      .query(`CREATE FUNCTION bench_attempt_read(p_id TEXT) RETURNS TABLE (id TEXT, account_id TEXT, endpoint_id TEXT, event_type TEXT, status TEXT, url TEXT,
       secret TEXT, previous_secret TEXT, round_attempts INTEGER, attempts INTEGER, created_at TIMESTAMPTZ, disabled BOOLEAN, failing_since TIMESTAMPTZ, job_id TEXT)
       LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $f$ BEGIN RETURN QUERY ${attemptRead.replace('$1', 'p_id')}; END $f$`);
    const deliveryParams = (i: number) => [deliveries[i % deliveries.length]!.id];
    const webhookRows: Array<[string, number]> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [label, sql] of [
        ['webhook attempt read, inline', attemptRead],
        ['webhook attempt read, PL/pgSQL function', 'SELECT * FROM bench_attempt_read($1)'],
      ] as const) {
        const t0 = performance.now();
        await measure(label, pool, sql, deliveryParams);
        webhookRows.push([label, ((performance.now() - t0) * 1000) / N]);
      }
    }

    console.log(
      `\n${N} statements per figure, 4 in flight, ${ROUNDS} rounds (this process's CPU only; PostgreSQL's work is the same for both)`,
    );
    const names = [...new Set(rows.map((r) => r.name))];
    for (const n of names) {
      const mine = rows.filter((r) => r.name === n);
      const cpu = mine.map((r) => r.perStatementCpuUs).sort((a, b) => a - b)[Math.floor(mine.length / 2)]!;
      const rate = mine.map((r) => r.perSecond).sort((a, b) => a - b)[Math.floor(mine.length / 2)]!;
      console.log(
        `${n.padEnd(40)} CPU ${cpu.toFixed(0).padStart(5)} µs/statement   ${rate.toFixed(0).padStart(6)} statements/s (median of rounds)`,
      );
    }
    console.log('\n10-lead pages of 20 jobs over one area, one commit at a time (wall time, median of rounds)');
    for (const n of [...new Set(pageRows.map(([name]) => name))]) {
      const times = pageRows
        .filter(([name]) => name === n)
        .map(([, ms]) => ms)
        .sort((a, b) => a - b);
      console.log(`${n.padEnd(40)} ${times[Math.floor(times.length / 2)]!.toFixed(2)} ms per page`);
    }
    console.log(
      '\nThe webhook path, per attempt (wall µs per statement, 4 in flight, median of rounds); an attempt itself waits tens of ms on the receiver',
    );
    for (const n of [...new Set(webhookRows.map(([name]) => name))]) {
      const times = webhookRows
        .filter(([name]) => name === n)
        .map(([, us]) => us)
        .sort((a, b) => a - b);
      console.log(`${n.padEnd(40)} ${times[Math.floor(times.length / 2)]!.toFixed(0)} µs per statement`);
    }
  } finally {
    await db.$disconnect();
    const admin = new Client({ connectionString: Object.assign(new URL(base), { pathname: '/postgres' }).toString() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: Error) => {
  console.error(`bench:sql failed: ${error.stack ?? error.message}`);
  process.exit(1);
});

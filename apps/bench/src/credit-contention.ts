// One account against ten at the database alone: job creations and settlements (the two statements that
// move an account's credit counters) sent straight to PostgreSQL through @leadgen/db's insertJob and
// recordSettlement, as the API and a worker send them, with no HTTP, Redis or provider in the way. So what the
// figure measures is how far one account's jobs queue behind each other on a lock, not how busy the
// machine's two cores are with everything else. Beside it, in the same run, the baseline "account row":
// the same functions wrapped by two made for the measurement only (in the bench's database, dropped with
// it) that first write the account row, so each creation and settlement holds its lock to the commit as
// the design before credit stripes did (which took it at the reservation, after the key's binding: its
// hold was a little shorter; the account row before a stripe is also the order reserve_credits.sql needs).
import { newId, reservationFor, type GenerationRequest } from '@leadgen/domain';
import { createAccount, createDatabase, insertJob, grantCredits, recordSettlement, type Database } from '@leadgen/db';
import type { Client } from 'pg';
import { sampleWaits } from './knee';
import { percentile } from './load';
import { fmt, median, table } from './report';

export type CreditMode = 'stripes' | 'account row';
const MODES: CreditMode[] = ['account row', 'stripes'];

export interface ContentionRun {
  label: string;
  mode: CreditMode;
  accounts: number;
  /** jobs created and settled per second */
  jobsPerS: number;
  createP50?: number;
  settleP50?: number;
  errors: number;
  firstError?: string;
  /** the two most frequent PostgreSQL waits of the bench database's active backends meanwhile */
  topWait: string;
}

const REQUEST: GenerationRequest = { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 25 };

const ACCOUNT_ROW_BASELINE = [
  `CREATE OR REPLACE FUNCTION bench_create_job_on_account_row(
     p_account_id TEXT, p_key TEXT, p_fingerprint TEXT, p_job_id TEXT, p_ttl_hours INTEGER, p_reserve INTEGER,
     p_result_set_id TEXT, p_source "Source", p_request JSONB, p_requested_count INTEGER, p_webhook_url TEXT, p_webhook_secret TEXT)
   RETURNS TABLE (o_outcome TEXT, o_job_id TEXT, o_fingerprint TEXT, o_available BIGINT) LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE accounts SET balance = balance WHERE id = p_account_id;
     RETURN QUERY SELECT c.o_outcome, c.o_job_id, c.o_fingerprint, c.o_available FROM create_job(p_account_id, p_key,
       p_fingerprint, p_job_id, p_ttl_hours, p_reserve, p_result_set_id, p_source, p_request, p_requested_count,
       p_webhook_url, p_webhook_secret, 0) c;
   END $$`,
  `CREATE OR REPLACE FUNCTION bench_settle_job_on_account_row(p_job_id TEXT, p_account_id TEXT)
   RETURNS INTEGER LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE accounts SET balance = balance WHERE id = p_account_id;
     PERFORM 1 FROM settle_job(p_job_id, 'EMPTY', 'no_results', 0, 0, 'job.empty', NULL);
     RETURN 1;
   END $$`,
];

/** One job created and settled the way `mode` says; resolves with [create ms, settle ms]. */
async function oneJob(mode: CreditMode, api: Database, worker: Database, accountId: string): Promise<[number, number]> {
  const jobId = newId.job();
  const reserve = reservationFor(REQUEST.source, REQUEST.maxResults);
  const t0 = performance.now();
  if (mode === 'stripes') {
    const created = await insertJob(api, {
      accountId,
      idempotencyKey: jobId,
      fingerprint: 'bench',
      idempotencyTtlHours: 1,
      jobId,
      resultSetId: newId.resultSet(),
      request: REQUEST,
      creditsReserved: reserve,
      share: 0,
    });
    if (created.kind !== 'created') throw new Error(`create answered ${created.kind}`);
  } else {
    const { rows } = await api.sql.query<{ o_outcome: string }>(
      'SELECT * FROM bench_create_job_on_account_row($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
      [
        accountId,
        jobId,
        'bench',
        jobId,
        1,
        reserve,
        newId.resultSet(),
        REQUEST.source,
        JSON.stringify(REQUEST),
        REQUEST.maxResults,
        null,
        null,
      ],
    );
    if (rows[0]?.o_outcome !== 'created') throw new Error(`create answered ${rows[0]?.o_outcome}`);
  }
  const t1 = performance.now();
  if (mode === 'stripes')
    await recordSettlement(
      worker,
      jobId,
      { kind: 'finished' },
      { source: REQUEST.source, requestedCount: REQUEST.maxResults, deliveredCount: 0 },
    );
  else await worker.sql.query('SELECT bench_settle_job_on_account_row($1, $2)', [jobId, accountId]);
  return [t1 - t0, performance.now() - t1];
}

async function run(
  mode: CreditMode,
  api: Database,
  worker: Database,
  accountIds: string[],
  clients: number,
  durationMs: number,
  probe: Client,
): Promise<Omit<ContentionRun, 'label' | 'mode'>> {
  const waits = sampleWaits(probe);
  const creates: number[] = [];
  const settles: number[] = [];
  let jobs = 0;
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const until = performance.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const accountId = accountIds[next++ % accountIds.length]!;
        try {
          const [create, settle] = await oneJob(mode, api, worker, accountId);
          creates.push(create);
          settles.push(settle);
          jobs += 1;
        } catch (error) {
          errors += 1;
          firstError ??= (error as Error).message;
        }
      }
    }),
  );
  const elapsed = performance.now() - started;
  const topWait = await waits.stop();
  return {
    topWait,
    accounts: accountIds.length,
    jobsPerS: (jobs * 1000) / elapsed,
    createP50: percentile(creates, 50),
    settleP50: percentile(settles, 50),
    errors,
    firstError,
  };
}

/**
 * Alternates one account and `spread` accounts for `rounds` rounds of `durationMs`, `clients` jobs in flight
 * (an API pool and a worker pool of that size: DATABASE_POOL_SIZE-like), and returns every run.
 */
export async function measureCreditContention(
  databaseUrl: string,
  options: { clients: number; durationMs: number; rounds: number; spread: number },
  probe: Client,
  log: (line: string) => void,
): Promise<ContentionRun[]> {
  const admin = createDatabase(databaseUrl, { poolSize: 2 });
  const api = createDatabase(databaseUrl, { poolSize: options.clients });
  const worker = createDatabase(databaseUrl, { poolSize: options.clients });
  try {
    const account = async (name: string) => {
      const a = await createAccount(admin, name);
      await grantCredits(admin, a.id, 1_000_000_000);
      return a.id;
    };
    const one = [await account('bench-contention-one')];
    const many = await Promise.all(Array.from({ length: options.spread }, (_, i) => account(`bench-contention-${i}`)));
    for (const sql of ACCOUNT_ROW_BASELINE) await admin.sql.query(sql);
    for (const mode of MODES) await run(mode, api, worker, many, options.clients, 500, probe); // warm both pools and the functions' plans
    const runs: ContentionRun[] = [];
    for (let round = 1; round <= options.rounds; round += 1) {
      // Alternate the order, so a drift in the machine's load favours no side.
      const order = round % 2 === 1 ? [one, many] : [many, one];
      const modes = round % 2 === 1 ? MODES : [...MODES].reverse();
      for (const mode of modes)
        for (const ids of order) {
          const label = ids.length === 1 ? '1 account' : `${ids.length} accounts`;
          const r = { label, mode, ...(await run(mode, api, worker, ids, options.clients, options.durationMs, probe)) };
          runs.push(r);
          log(
            `  round ${round} credits ${mode.padEnd(11)} ${label.padEnd(12)} ${fmt.rate(r.jobsPerS).padStart(6)} jobs/s, create p50 ${fmt.ms(r.createP50)}, settle p50 ${fmt.ms(r.settleP50)}; top waits ${r.topWait}${r.errors ? `, ${r.errors} errors (${r.firstError})` : ''}`,
          );
        }
    }
    return runs;
  } finally {
    await Promise.all([admin, api, worker].map((d) => d.$disconnect()));
  }
}

/** Median over the rounds per side and mode, and the ratio the issue asks about (one account / the spread). */
export function contentionTable(runs: ContentionRun[], clients: number): string {
  const spread = runs.find((r) => r.accounts > 1)?.accounts ?? '-';
  const rows = [
    [
      `create + settle, ${clients} in flight`,
      'one account',
      `${spread} accounts`,
      'one / spread',
      'top PG waits, one account (last round)',
    ],
  ];
  for (const mode of MODES) {
    const side = (one: boolean) => runs.filter((r) => r.mode === mode && (r.accounts === 1) === one);
    const [one, many] = [side(true), side(false)];
    if (!one.length || !many.length) continue;
    const cell = (rs: ContentionRun[]) =>
      `${fmt.rate(median(rs.map((r) => r.jobsPerS)))} jobs/s, create p50 ${fmt.ms(median(rs.map((r) => r.createP50 ?? 0)))}, settle p50 ${fmt.ms(median(rs.map((r) => r.settleP50 ?? 0)))}`;
    const ratio = median(one.map((r) => r.jobsPerS)) / median(many.map((r) => r.jobsPerS));
    rows.push([
      mode === 'stripes' ? 'service (credit stripes)' : 'baseline: account row',
      cell(one),
      cell(many),
      `${fmt.ratio(ratio)}x (rounds: ${one.map((r, i) => (many[i] ? (r.jobsPerS / many[i]!.jobsPerS).toFixed(2) : '-')).join(', ')})`,
      one.at(-1)?.topWait ?? '-',
    ]);
  }
  return table(rows);
}

// The data-volume section (issue 39, decision 043): the costs that grew with the whole database, measured with a small
// account alone and again beside a big one (a customer's year: 1,000,000 leads over 40,000 jobs, 200,000 suppressions,
// 100,000 webhook deliveries, an attempt each; --quick a twentieth), as ratios big/small: a small account's deletion, a subject's erasure
// (its search, through the index of contact keys), and GET /suppressions of a short list and of the big one. Then the big
// account's own deletion: its batches' longest statement (what any lock is held for), the one that takes the account
// row, and its ledger's batches (decision 043). Last,
// retention by whole partitions (decision 046): a fifth of the big account's leads written again, their jobs past a
// 30-day retention, expired at a time past their partition's bound: the leads tree's bytes before and after, beside
// the dropped partitions' own bytes (what a drop frees; the row-by-row DELETE it replaces freed none, issue 39).
// The volume is written by PostgreSQL itself (INSERT … SELECT over generate_series), not through the API, then vacuumed
// as autovacuum would after such a load (a GIN index's pending list, up to 4 MB, otherwise costs every search a few ms).
import { performance } from 'node:perf_hooks';
import { createDatabase, deleteAccount, eraseSubject, excerptClearing, expireLeads, subjectHolders, type Database } from '@leadgen/db';
import { createBenchAccount } from './database';
import type { HttpClient } from './load';
import { fmt, median } from './report';

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export interface VolumeShape {
  leads: number;
  leadsPerJob: number;
  suppressions: number;
  webhookDeliveries: number;
}

export const SMALL: VolumeShape = { leads: 1_000, leadsPerJob: 25, suppressions: 1_000, webhookDeliveries: 100 };
export const YEAR: VolumeShape = { leads: 1_000_000, leadsPerJob: 25, suppressions: 200_000, webhookDeliveries: 100_000 };
export const QUICK_BIG: VolumeShape = { leads: 50_000, leadsPerJob: 25, suppressions: 10_000, webhookDeliveries: 5_000 };

export interface VolumeFigure {
  what: string;
  /** ms, median of the samples */
  small: number;
  big: number;
}

/** A call whose work does not grow with the database (GET /account: one account row, by key), timed beside the others. */
export interface VolumeControl {
  /** ms, median, when the small figures were taken */
  small: number;
  /** ms, median, when the big figures were taken */
  big: number;
}

export interface VolumeRun {
  big: VolumeShape;
  seedMs: number;
  figures: VolumeFigure[];
  /** The machine's own drift between the two moments (its load moves while the big account is written): every
   * figure's ratio is also printed divided by this one's, so what is left is what the volume itself costs. */
  control: VolumeControl;
  /** longestMs: of all its statements; accountRowMs: delete_account's first (the figures, the account row); then its
   * ledger's statements (decision 043: they were the account row's cascade, one statement) */
  bigDeletion: {
    ms: number;
    statements: number;
    longestMs: number;
    accountRowMs: number;
    ledgerStatements: number;
    ledgerLongestMs: number;
    ledgerRows: number;
    leads: number;
  } | null;
  /** the erasure's candidate search, as PostgreSQL plans it at the big volume */
  erasurePlan: string;
  /** the erasure's clearing of webhook attempts' excerpts, as PostgreSQL plans it at the big volume (its scans) */
  excerptPlan: string;
  retention: { leads: number; ms: number; partitions: number; beforeBytes: number; afterBytes: number; droppedBytes: number } | null;
  problems: string[];
}

/** Writes an account of `shape` into the database, as the service would have stored it, in a few statements. */
export async function seedAccount(db: Database, accountId: string, shape: VolumeShape, tag: string): Promise<void> {
  const jobs = Math.ceil(shape.leads / shape.leadsPerJob);
  // Ids of the service's shape (job_ + 24 of [0-9a-z]), so the API answers for them: the tag, padded, then the number.
  const prefix = tag.padEnd(15, 'v');
  // The jobs' creation times, which their leads carry as the key leads are partitioned by (decision 046).
  const since = new Date(Date.now() - 300 * 86_400_000);
  await db.sql.query(
    `INSERT INTO jobs (id, account_id, result_set_id, source, status, request, requested_count, delivered_count, provider,
                       credits_reserved, credits_charged, created_at, started_at, finished_at)
     SELECT 'job_' || $4 || lpad(g::text, 9, '0'), $1, 'rs_' || $4 || lpad(g::text, 9, '0'), 'google_maps', 'COMPLETE',
            '{"source":"google_maps","category":"dentist","state":"US","maxResults":25}'::jsonb, $3, $3, 'sandbox', $3, $3,
            $5::timestamptz + g * interval '10 minutes', now(), now()
     FROM generate_series(1, $2::int) g`,
    [accountId, jobs, shape.leadsPerJob, prefix, since],
  );
  // Each lead with its own email, phone, website and profile, as a page commit would have stored it.
  await db.sql.query(
    `INSERT INTO leads (job_id, job_created_at, position, dedup_key, data)
     SELECT 'job_' || $4 || lpad(j::text, 9, '0'), $5::timestamptz + j * interval '10 minutes', p, 'place-' || j || '-' || p, jsonb_build_object(
       'source', 'google_maps', 'businessName', 'Studio ' || j || '-' || p,
       'email', 'info' || p || '@studio' || $2 || j || '.example', 'phone', '+1 512-' || lpad((j % 1000)::text, 3, '0') || '-' || lpad(p::text, 4, '0'),
       'website', 'https://www.studio' || $2 || j || '.example/contact', 'address', p || ' Congress Ave, Austin, TX 78701',
       'reviewScore', 4.5, 'categories', jsonb_build_array('dentist'),
       'socialProfiles', jsonb_build_object('facebook', null, 'instagram', null, 'linkedin', 'https://www.linkedin.com/in/p-' || $2 || j || '-' || p))
     FROM generate_series(1, $1::int) j, generate_series(0, $3::int - 1) p`,
    [jobs, tag, shape.leadsPerJob, prefix, since],
  );
  await db.sql.query(
    `INSERT INTO account_deliveries (account_id, source, dedup_key, job_id)
     SELECT $1, 'google_maps', encode(sha256(('place-' || $4 || j || '-' || p)::bytea), 'hex'), 'job_' || $5 || lpad(j::text, 9, '0')
     FROM generate_series(1, $2::int) j, generate_series(0, $3::int - 1) p`,
    [accountId, jobs, shape.leadsPerJob, tag, prefix],
  );
  await db.sql.query(
    `INSERT INTO credit_ledger (account_id, job_id, kind, amount)
     SELECT $1, 'job_' || $3 || lpad(g::text, 9, '0'), k::"LedgerKind", 25 FROM generate_series(1, $2::int) g, unnest(ARRAY['reserve', 'charge']) k`,
    [accountId, jobs, prefix],
  );
  await db.sql.query(
    `INSERT INTO suppressions (account_id, kind, value) SELECT $1, 'domain', 'blocked' || g || '.example' FROM generate_series(1, $2::int) g`,
    [accountId, shape.suppressions],
  );
  await db.sql.query(
    `INSERT INTO webhook_deliveries (account_id, url, job_id, event_type, status)
     SELECT $1, 'https://hooks.example/x', 'job_' || $3 || lpad((1 + g % $4)::text, 9, '0'), 'job.completed', 'succeeded'
     FROM generate_series(1, $2::int) g`,
    [accountId, shape.webhookDeliveries, prefix, jobs],
  );
  // One attempt per delivery, as the worker writes it (webhook-attempts.ts), with the receiver's answer kept as its
  // excerpt: a small JSON echoing an id, as receivers answer. The erasure clears the excerpts that hold the subject.
  await db.sql.query(
    `INSERT INTO webhook_attempts (delivery_id, delivery_created_at, attempt, url, started_at, response_status, latency_ms,
                                   response_excerpt, error, succeeded)
     SELECT d.id, d.created_at, 1, d.url, d.created_at, 200, 40 + (random() * 200)::int,
            '{"ok":true,"received":"' || d.id || '","request_id":"req_' || md5(d.id) || '","queued":' || (random() * 50)::int || '}',
            NULL, true
     FROM webhook_deliveries d WHERE d.account_id = $1`,
    [accountId],
  );
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

async function samples(n: number, fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) ms.push((await timed(fn))[0]);
  return median(ms);
}

export async function measureDataVolume(options: {
  databaseUrl: string;
  client: HttpClient;
  big: VolumeShape;
  samples: number;
  log: (line: string) => void;
}): Promise<VolumeRun> {
  const { log, client, big } = options;
  const db = createDatabase(options.databaseUrl, { poolSize: 2 });
  const problems: string[] = [];
  try {
    let accounts = 0;
    const account = async (shape: VolumeShape) => {
      const made = await createBenchAccount(options.databaseUrl, `bench-volume-${accounts}`);
      await seedAccount(db, made.accountId, shape, `${(accounts++).toString(36)}x`);
      return made;
    };
    const headers = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });
    const page = async (apiKey: string) => {
      const answer = await client.request('GET', '/api/v1/suppressions?limit=100', headers(apiKey));
      if (answer.status !== 200) problems.push(`GET /suppressions answered ${answer.status}: ${answer.body.slice(0, 120)}`);
    };
    const deliveries = async (apiKey: string, jobId: string) => {
      const answer = await client.request('GET', `/api/v1/leads/jobs/${jobId}/webhook-deliveries`, headers(apiKey));
      if (answer.status !== 200) problems.push(`a job's webhook deliveries answered ${answer.status}: ${answer.body.slice(0, 120)}`);
    };
    let absent = 0;
    // A subject no lead holds: the whole erasure (global list, barrier, index search, excerpts) without the epoch wait.
    const erase = () => eraseSubject(db, { kind: 'email', value: `nobody${absent++}@absent.example` });
    // The erasure's one statement over the webhook attempts (its excerpts' clearing), alone: an absent email's and a
    // phone's (its digits), which nothing holds, so each run clears nothing.
    const clearings = [
      excerptClearing({ kind: 'email', value: 'nobody@absent.example' }),
      excerptClearing({ kind: 'phone', value: '+15550001234' }),
    ];
    const clearExcerpts = async () => {
      for (const c of clearings) await db.sql.query(c.sql, c.params);
    };
    const holders = () => subjectHolders(db, { kind: 'domain', value: 'studio0x1.example' }, new Date(0));
    const deleteSmall = async () => {
      const { accountId } = await account(SMALL);
      const [ms, deletion] = await timed(() => deleteAccount(db, accountId));
      if (deletion.outcome !== 'deleted') problems.push(`a small account's deletion: ${deletion.outcome}`);
      return ms;
    };

    const small = await account(SMALL);
    const control = async (apiKey: string) => {
      const answer = await client.request('GET', '/api/v1/account', headers(apiKey));
      if (answer.status !== 200) problems.push(`GET /account answered ${answer.status}: ${answer.body.slice(0, 120)}`);
    };
    const measureAll = async () => ({
      control: await samples(options.samples * 4, () => control(small.apiKey)),
      page: await samples(options.samples * 4, () => page(small.apiKey)),
      jobDeliveries: await samples(options.samples * 4, () => deliveries(small.apiKey, `job_${'0x'.padEnd(15, 'v')}000000001`)),
      // Twenty, as the calls above: each is a few ms, and the erasure commits (a WAL flush, which the other users of a
      // shared disk slow as the control's read is not); a median of five swung 0.6x-3.0x between runs of one commit.
      erase: await samples(options.samples * 4, erase),
      clearExcerpts: await samples(options.samples * 4, clearExcerpts),
      holders: await samples(options.samples * 4, holders),
      deletion: median(
        await Array.from({ length: options.samples }).reduce<Promise<number[]>>(
          async (all) => [...(await all), await deleteSmall()],
          Promise.resolve([]),
        ),
      ),
    });
    // After a bulk load, as autovacuum's insert-triggered run leaves a table: the GIN index's pending list (new
    // entries not yet merged, at most gin_pending_list_limit, 4 MB) merged, and statistics read.
    const settle = () => db.sql.query('VACUUM ANALYZE leads, jobs, suppressions, webhook_deliveries, webhook_attempts, account_deliveries');
    await settle();
    await measureAll(); // a warm-up, discarded: the API's key cache, the pools, PostgreSQL's plans and pages
    const before = await measureAll();

    const seedStart = performance.now();
    const bigAccount = await account(big);
    await settle();
    const seedMs = performance.now() - seedStart;
    // The load's gigabyte of WAL and dirty pages flushed now (a checkpoint), not while the figures are taken, and
    // the small account's working set read back in (a discarded round): what is compared is a steady state.
    await db.sql.query('CHECKPOINT').catch(() => undefined);
    await measureAll();
    log(
      `  the big account: ${big.leads.toLocaleString('en')} leads over ${Math.ceil(big.leads / big.leadsPerJob).toLocaleString('en')} jobs, ` +
        `${big.suppressions.toLocaleString('en')} suppressions, ${big.webhookDeliveries.toLocaleString('en')} webhook deliveries, written in ${secs(seedMs)}`,
    );
    const after = await measureAll();
    const bigPage = await samples(options.samples * 4, () => page(bigAccount.apiKey));

    const plan = await db.sql.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT job_id, position FROM leads WHERE lead_contact_keys(data) && $1::text[]`,
      [['e:nobody@absent.example']],
    );
    const erasurePlan = plan.rows.map((r) => r['QUERY PLAN'].trim()).join(' / ');
    if (!erasurePlan.includes('contact_keys')) problems.push(`the erasure's search does not use the index: ${erasurePlan}`);
    // The excerpts' clearing (decision 043): through the trigram indexes, not a read of every attempt.
    const clearing = excerptClearing({ kind: 'email', value: 'nobody@absent.example' });
    const excerptPlan = (await db.sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${clearing.sql}`, clearing.params)).rows
      .map((r) => r['QUERY PLAN'].trim())
      .filter((line) => /Scan on/.test(line))
      .join(' / ');
    // (Below some 5,000 attempts a partition, as --quick seeds, PostgreSQL rightly reads the partition whole.)
    if (big.webhookDeliveries >= 20_000 && !excerptPlan.includes('trgm_idx'))
      problems.push(`the erasure's excerpt clearing does not use the trigram index: ${excerptPlan}`);

    // The big account's own deletion, each statement timed: the batches' longest bounds any lock it holds. Its
    // delete_account statements apart: the first takes the figures and the account row, the others its ledger.
    const statements: number[] = [];
    const deleteSteps: number[] = [];
    const query = db.sql.query.bind(db.sql);
    (db.sql as unknown as { query: unknown }).query = async (text: string, values?: unknown[]) => {
      const start = performance.now();
      try {
        return await query(text, values as never);
      } finally {
        if (typeof text === 'string' && /purge_account_rows|delete_account/.test(text)) statements.push(performance.now() - start);
        if (typeof text === 'string' && /delete_account\(/.test(text)) deleteSteps.push(performance.now() - start);
      }
    };
    let bigDeletion: VolumeRun['bigDeletion'] = null;
    try {
      const [ms, deletion] = await timed(() => deleteAccount(db, bigAccount.accountId));
      if (deletion.outcome !== 'deleted') problems.push(`the big account's deletion: ${deletion.outcome}`);
      else
        bigDeletion = {
          ms,
          statements: statements.length,
          longestMs: Math.max(...statements),
          accountRowMs: deleteSteps[0]!,
          ledgerStatements: deleteSteps.length - 1,
          ledgerLongestMs: Math.max(0, ...deleteSteps.slice(1)),
          ledgerRows: deletion.figures.ledgerRows,
          leads: deletion.figures.leads,
        };
    } finally {
      (db.sql as unknown as { query: unknown }).query = query;
    }
    const retention = await measureRetention(
      db,
      await account({ leads: Math.round(big.leads / 5), leadsPerJob: 25, suppressions: 0, webhookDeliveries: 0 }),
      problems,
      log,
    );
    return {
      big,
      seedMs,
      retention,
      control: { small: before.control, big: after.control },
      figures: [
        { what: 'GET /suppressions, 1,000 entries → the big list', small: before.page, big: bigPage },
        { what: 'GET /suppressions, 1,000 entries, small db → big db', small: before.page, big: after.page },
        { what: "a job's webhook deliveries, small db → big db", small: before.jobDeliveries, big: after.jobDeliveries },
        { what: 'erasure of an absent subject (whole call)', small: before.erase, big: after.erase },
        { what: "erasure's excerpt clearing (an email's, a phone's)", small: before.clearExcerpts, big: after.clearExcerpts },
        { what: "a domain's holders (objections' search)", small: before.holders, big: after.holders },
        { what: 'a 1,000-lead account deleted', small: before.deletion, big: after.deletion },
      ],
      bigDeletion,
      erasurePlan,
      excerptPlan,
      problems,
    };
  } finally {
    await db.$disconnect();
  }
}

const TREE_BYTES = `SELECT sum(pg_total_relation_size(relid))::bigint AS bytes FROM pg_partition_tree('leads')`;

/** Retention of an account's leads, all past the window: expireLeads at a time past their partition's upper bound. */
async function measureRetention(
  db: Database,
  account: { accountId: string },
  problems: string[],
  log: (line: string) => void,
): Promise<VolumeRun['retention']> {
  await db.sql.query(`UPDATE jobs SET finished_at = created_at + interval '1 hour' WHERE account_id = $1`, [account.accountId]);
  await db.sql.query('VACUUM ANALYZE leads');
  const { rows: bounds } = await db.sql.query<{ o_partition: string; o_upper: Date; bytes: string }>(
    'SELECT b.*, pg_total_relation_size(b.o_partition::regclass)::bigint AS bytes FROM lead_partition_bounds() b',
  );
  const upper = Math.max(...bounds.filter((b) => b.o_partition === 'leads_legacy').map((b) => b.o_upper.getTime()));
  // A partition goes only once every job in it has ended. In a whole bench run, the sections before this one leave
  // jobs that never end (held, cancelled mid-way, killed workers) in the same partition as this account's leads; it
  // then rightly stays, and there is nothing to measure: said, not counted as broken. `--only volume` measures it
  // (CI runs it so).
  const { rows: open } = await db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM jobs WHERE account_id <> $1 AND finished_at IS NULL AND created_at < $2`,
    [account.accountId, new Date(upper)],
  );
  if (open[0]!.n > 0) {
    log(`  retention by partitions: not measured, ${open[0]!.n} jobs of other sections never ended in its partition (run --only volume)`);
    return null;
  }
  const beforeBytes = Number((await db.sql.query<{ bytes: string }>(TREE_BYTES)).rows[0]!.bytes);
  const [ms, report] = await timed(() => expireLeads(db, 30, { now: new Date(upper + 31 * 86_400_000) }));
  const afterBytes = Number((await db.sql.query<{ bytes: string }>(TREE_BYTES)).rows[0]!.bytes);
  const droppedBytes = bounds.filter((b) => report.partitions.includes(b.o_partition)).reduce((n, b) => n + Number(b.bytes), 0);
  if (!report.partitions.includes('leads_legacy'))
    problems.push(`retention dropped no partition holding the leads: ${report.partitions.join(', ')}`);
  return { leads: report.leads, ms, partitions: report.partitions.length, beforeBytes, afterBytes, droppedBytes };
}

export function volumeLines(run: VolumeRun): string[] {
  const lines = [
    'Data volume: each figure the median of its samples with a small account alone (small), then beside the big account',
    `(big: ${run.big.leads.toLocaleString('en')} leads); flat is a ratio near 1 (the target: <= 2, where it grew with the whole database before).`,
    'The control is a call whose work does not grow with the database, timed at both moments: "÷ control" divides each',
    "ratio by the control's, taking out how much busier the machine was when the big figures were taken.",
    '',
    `  ${'what'.padEnd(56)} ${'small'.padStart(9)} ${'big'.padStart(9)} ${'big/small'.padStart(9)} ${'÷ control'.padStart(9)}`,
  ];
  const drift = run.control.big / run.control.small;
  const row = (what: string, small: number, big: number, normalised: string) =>
    `  ${what.padEnd(56)} ${fmt.ms(small).padStart(9)} ${fmt.ms(big).padStart(9)} ${(big / small).toFixed(2).padStart(9)} ${normalised.padStart(9)}`;
  lines.push(row('control: GET /account (one row by key)', run.control.small, run.control.big, ''));
  for (const f of run.figures) lines.push(row(f.what, f.small, f.big, (f.big / f.small / drift).toFixed(2)));
  if (run.bigDeletion) {
    const d = run.bigDeletion;
    lines.push(
      '',
      `  the big account deleted: ${secs(d.ms)} for ${d.leads.toLocaleString('en')} leads (${((d.leads / d.ms) * 1000).toLocaleString('en', { maximumFractionDigits: 0 })} leads/s) in ${d.statements} statements;`,
      `  longest statement ${fmt.ms(d.longestMs)} (target: no lock held for seconds, < 1 s); delete_account's first (the figures, the account row) ${fmt.ms(d.accountRowMs)},`,
      `  then its ledger's ${d.ledgerRows.toLocaleString('en')} rows in ${d.ledgerStatements} statements, the longest ${fmt.ms(d.ledgerLongestMs)}`,
    );
  }
  if (run.retention) {
    const r = run.retention;
    const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
    lines.push(
      '',
      `  retention by partitions: ${r.leads.toLocaleString('en')} leads expired in ${fmt.ms(r.ms)} (${r.partitions} partitions dropped); leads tree ${mb(r.beforeBytes)} → ${mb(r.afterBytes)}:`,
      `  freed ${mb(r.beforeBytes - r.afterBytes)}, beside the dropped partitions' own ${mb(r.droppedBytes)} (the floor a drop frees; the row-by-row DELETE freed 0)`,
    );
  }
  lines.push(`  erasure's search at the big volume: ${run.erasurePlan}`);
  lines.push(`  erasure's excerpt clearing at the big volume: ${run.excerptPlan}`);
  for (const p of run.problems) lines.push(`  ! ${p}`);
  return lines;
}

// The bench's own database (a fresh name per run, dropped at the end) and accounts, made through
// the admin functions of @leadgen/db only, and the correctness checks read back from PostgreSQL.
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createAccount, createDatabase, grantCredits, issueApiKey, migrate } from '@leadgen/db';

export const GRANT = 1_000_000_000;

export interface BenchDatabase {
  name: string;
  url: string;
  /** the bench's own connection (pg_stat_activity, checks); its backend is excluded from the figures */
  probe: Client;
  probePid: number;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createBenchDatabase(baseUrl: string): Promise<BenchDatabase> {
  // Never leadgen, leadgen_test or leadgen_bench: a random suffix per run, so two runs (or two
  // engineers) never share one and a crashed run's leftovers cannot skew the next.
  const name = `leadgen_bench_${randomBytes(4).toString('hex')}`;
  const url = withDatabase(baseUrl, name);
  await migrate(url); // creates the database, then applies the migrations as `npm start` does
  const probe = new Client({ connectionString: url });
  await probe.connect();
  const probePid = (await probe.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return {
    name,
    url,
    probe,
    probePid,
    async drop() {
      await probe.end().catch(() => undefined);
      const admin = new Client({ connectionString: withDatabase(baseUrl, 'postgres') });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** An account with plenty of credits and an API key, through the service's admin functions. */
export async function createBenchAccount(url: string, name: string): Promise<{ accountId: string; apiKey: string }> {
  const db = createDatabase(url, { poolSize: 1 });
  try {
    const account = await createAccount(db, name);
    await grantCredits(db, account.id, GRANT);
    const { apiKey } = await issueApiKey(db, account.id);
    return { accountId: account.id, apiKey };
  } finally {
    await db.$disconnect();
  }
}

export interface CheckInput {
  accountId: string;
  /** what the API answered for the account's credits (GET /api/v1/account) */
  credits: { balance: number; reserved: number };
  /** per job id, the deliveredCount and the number of leads clients received in the terminal body */
  seen: Map<string, { delivered: number; leads: number }>;
}

export interface CheckLine {
  ok: boolean;
  what: string;
}

/** Waits until no job of the account is queued or running (sync calls that answered 202 finish late). */
export async function waitAllTerminal(probe: Client, accountId: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await probe.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND status::text IN ('queued', 'running')",
      [accountId],
    );
    if (rows[0]!.n === 0 || Date.now() > until) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The invariants of the old bench, over every job of the account, from PostgreSQL (the source of truth). */
export async function correctnessChecks(probe: Client, input: CheckInput): Promise<CheckLine[]> {
  const one = async <T>(sql: string) => (await probe.query(sql, [input.accountId])).rows[0] as T;
  const statuses = (
    await probe.query<{ status: string; n: number }>(
      'SELECT status::text, count(*)::int AS n FROM jobs WHERE account_id = $1 GROUP BY 1 ORDER BY 1',
      [input.accountId],
    )
  ).rows;
  const jobs = await one<{ n: number; open: number; delivered: number; charged: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE status::text IN ('queued', 'running'))::int AS open,
            COALESCE(sum(delivered_count), 0)::int AS delivered, COALESCE(sum(credits_charged), 0)::int AS charged
       FROM jobs WHERE account_id = $1`,
  );
  const leadRows = await one<{ n: number }>(
    'SELECT count(*)::int AS n FROM leads l JOIN jobs j ON j.id = l.job_id WHERE j.account_id = $1',
  );
  const dups = await one<{ n: number }>(
    'SELECT count(*)::int AS n FROM (SELECT 1 FROM leads l JOIN jobs j ON j.id = l.job_id WHERE j.account_id = $1 GROUP BY l.job_id, l.dedup_key HAVING count(*) > 1) d',
  );
  const multi = await one<{ n: number }>(
    "SELECT count(*)::int AS n FROM (SELECT 1 FROM credit_ledger WHERE account_id = $1 AND kind = 'charge' GROUP BY job_id HAVING count(*) > 1) d",
  );
  const mismatched = await one<{ n: number }>(
    `SELECT count(*)::int AS n FROM jobs j LEFT JOIN credit_ledger l ON l.job_id = j.id AND l.kind = 'charge'
      WHERE j.account_id = $1 AND COALESCE(l.amount, 0) <> COALESCE(j.credits_charged, 0)`,
  );
  // What clients were told against what the database holds, for the jobs whose terminal body they read.
  const ids = [...input.seen.keys()];
  const dbDelivered = ids.length
    ? (await probe.query<{ id: string; delivered: number }>('SELECT id, delivered_count AS delivered FROM jobs WHERE id = ANY($1)', [ids]))
        .rows
    : [];
  const seenDelivered = [...input.seen.values()].reduce((s, v) => s + v.delivered, 0);
  const seenLeads = [...input.seen.values()].reduce((s, v) => s + v.leads, 0);
  const dbSeen = dbDelivered.reduce((s, r) => s + r.delivered, 0);
  return [
    {
      ok: jobs.open === 0,
      what: `every job terminal: ${jobs.n - jobs.open}/${jobs.n} (${statuses.map((s) => `${s.status} ${s.n}`).join(', ')})`,
    },
    {
      ok: leadRows.n === jobs.delivered && seenLeads === seenDelivered && seenDelivered === dbSeen,
      // Only a section whose clients read the terminal bodies (the fleet) has this half to say: the knee's do not.
      what: `leads = sum(deliveredCount): ${leadRows.n} lead rows, sum ${jobs.delivered}${ids.length ? `; clients received ${seenLeads} leads for ${ids.length} jobs whose deliveredCount says ${seenDelivered} (database ${dbSeen})` : ''}`,
    },
    { ok: dups.n === 0, what: `no duplicate (job_id, dedup_key): ${dups.n} duplicated` },
    {
      ok: multi.n === 0 && mismatched.n === 0,
      what: `ledger: at most one charge per job (${multi.n} with more), equal to credits_charged (${mismatched.n} differ)`,
    },
    {
      ok: input.credits.balance === GRANT - jobs.charged && input.credits.reserved === 0,
      what: `balance ${input.credits.balance} = grants ${GRANT} - charges ${jobs.charged}; reserved ${input.credits.reserved}`,
    },
  ];
}

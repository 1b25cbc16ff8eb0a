import { Client } from 'pg';
import { TARIFFS, TERMINAL_STATUSES } from '@leadgen/domain';

/**
 * The guarantees the fault suites check after they have done their worst, as SQL over the tables.
 * Each invariant is a query that returns the rows breaking it (none when it holds), so a failure
 * names the job or account and shows the numbers. Add one by appending to INVARIANTS: its query
 * gets `$1` = the account ids to look at (text[]; NULL for all accounts), and `requires` lets it wait
 * for a column a later migration adds (account_counters_match_ledger does so).
 */
export interface Invariant {
  name: string;
  /** what must hold, for a failure message */
  rule: string;
  sql: string;
  /** columns the query needs, as "table.column": it is skipped on a schema without them */
  requires?: string[];
}

const TERMINAL = TERMINAL_STATUSES.map((s) => `'${s}'`).join(', ');
const scoped = (column: string) => `($1::text[] IS NULL OR ${column} = ANY($1::text[]))`;

export const INVARIANTS: Invariant[] = [
  {
    name: 'leads_unique_per_result_set',
    rule: 'a lead (dedup key) is stored at most once per job',
    sql: `SELECT l.job_id, l.dedup_key, count(*) AS copies FROM leads l JOIN jobs j ON j.id = l.job_id
          WHERE ${scoped('j.account_id')} GROUP BY l.job_id, l.dedup_key HAVING count(*) > 1`,
  },
  {
    name: 'delivered_count_matches_leads',
    rule: "a job's delivered_count equals the leads stored for it (at positions 0..n-1) plus those a subject erasure deleted since (gaps then), and none are stored once its leads expired",
    requires: ['jobs.leads_erased', 'jobs.leads_expired_at'],
    sql: `SELECT j.id, j.status, j.delivered_count, j.leads_erased, j.leads_expired_at, count(l.id) AS stored, max(l.position) AS last_position
          FROM jobs j LEFT JOIN leads l ON l.job_id = j.id WHERE ${scoped('j.account_id')}
          GROUP BY j.id
          HAVING CASE WHEN j.leads_expired_at IS NOT NULL THEN count(l.id) <> 0
                      ELSE j.delivered_count <> count(l.id) + j.leads_erased
                        OR coalesce(max(l.position) + 1, 0) > j.delivered_count
                        OR (j.leads_erased = 0 AND coalesce(max(l.position) + 1, 0) <> count(l.id)) END`,
  },
  {
    name: 'one_ledger_entry_per_kind_per_job',
    rule: 'a job has at most one reserve, one release and one charge',
    sql: `SELECT job_id, kind, count(*) AS entries FROM credit_ledger
          WHERE job_id IS NOT NULL AND ${scoped('account_id')} GROUP BY job_id, kind HAVING count(*) > 1`,
  },
  {
    name: 'reservation_matches_job',
    rule: "a job's reserve entry is its credits_reserved, on its own account",
    sql: `SELECT j.id, j.credits_reserved, r.amount AS reserved_in_ledger, r.account_id AS ledger_account
          FROM jobs j LEFT JOIN credit_ledger r ON r.job_id = j.id AND r.kind = 'reserve'
          WHERE ${scoped('j.account_id')}
            AND (coalesce(r.amount, 0) <> j.credits_reserved OR (r.account_id IS NOT NULL AND r.account_id <> j.account_id))`,
  },
  {
    name: 'terminal_job_settled',
    rule: 'a terminal job has released its whole reservation, is charged what its tariff says for what it delivered (an area tile per item, no minimum: decision 039), and has finished_at',
    sql: `WITH tariff(source, per_item, minimum) AS (VALUES ${tariffRows()})
          SELECT j.id, j.status, j.source, j.delivered_count, j.credits_reserved, j.credits_charged,
                 rel.amount AS released, ch.amount AS charged_in_ledger, j.finished_at
          FROM jobs j JOIN tariff t ON t.source = j.source::text
          LEFT JOIN credit_ledger rel ON rel.job_id = j.id AND rel.kind = 'release'
          LEFT JOIN credit_ledger ch ON ch.job_id = j.id AND ch.kind = 'charge'
          WHERE j.status::text IN (${TERMINAL}) AND ${scoped('j.account_id')}
            AND (coalesce(rel.amount, 0) <> j.credits_reserved
              OR j.credits_charged IS NULL
              OR coalesce(ch.amount, 0) <> j.credits_charged
              OR j.credits_charged <> CASE WHEN j.delivered_count = 0 THEN 0
                   WHEN j.request ? 'tile' THEN t.per_item * j.delivered_count
                   ELSE greatest(t.per_item * j.delivered_count, t.minimum) END
              OR j.credits_charged > j.credits_reserved
              OR j.finished_at IS NULL)`,
  },
  {
    name: 'open_job_unsettled',
    rule: 'a queued or running job has no release, no charge and no finished_at',
    sql: `SELECT j.id, j.status, array_agg(e.kind) FILTER (WHERE e.kind IN ('release', 'charge')) AS settled_by, j.finished_at
          FROM jobs j LEFT JOIN credit_ledger e ON e.job_id = j.id
          WHERE j.status::text NOT IN (${TERMINAL}) AND ${scoped('j.account_id')}
          GROUP BY j.id HAVING count(e.id) FILTER (WHERE e.kind IN ('release', 'charge')) > 0 OR j.finished_at IS NOT NULL`,
  },
  {
    name: 'status_matches_delivered_count',
    rule: 'COMPLETE delivered all, PARTIAL 1..n-1, EMPTY and FAILED none (docs/api.md#job-statuses)',
    sql: `SELECT id, status, delivered_count, requested_count, stop_reason FROM jobs
          WHERE ${scoped('account_id')} AND (
               (status = 'COMPLETE' AND delivered_count <> requested_count)
            OR (status = 'PARTIAL' AND (delivered_count < 1 OR delivered_count >= requested_count))
            OR (status IN ('EMPTY', 'FAILED') AND delivered_count <> 0))`,
  },
  {
    name: 'ledger_adds_up',
    rule: "per account: open reservations (reserve - release) are the open jobs' credits_reserved, and never exceed the balance (grant - charge)",
    sql: `WITH ledger AS (
            SELECT account_id,
                   coalesce(sum(amount) FILTER (WHERE kind = 'grant'), 0) - coalesce(sum(amount) FILTER (WHERE kind = 'charge'), 0) AS balance,
                   coalesce(sum(amount) FILTER (WHERE kind = 'reserve'), 0) - coalesce(sum(amount) FILTER (WHERE kind = 'release'), 0) AS reserved
            FROM credit_ledger WHERE ${scoped('account_id')} GROUP BY account_id),
          open_jobs AS (
            SELECT account_id, sum(credits_reserved) AS reserved FROM jobs
            WHERE status::text NOT IN (${TERMINAL}) AND ${scoped('account_id')} GROUP BY account_id)
          SELECT l.account_id, l.balance, l.reserved, coalesce(o.reserved, 0) AS open_job_reservations
          FROM ledger l LEFT JOIN open_jobs o ON o.account_id = l.account_id
          WHERE l.reserved <> coalesce(o.reserved, 0) OR l.reserved > l.balance OR l.balance < 0`,
  },
  {
    // For the kept counters (the account row's base part and its credit stripes'): their sums must say what the ledger says.
    name: 'account_counters_match_ledger',
    rule: "accounts.balance + its stripes' is grants - charges, and accounts.reserved + its stripes' is reserves - releases, as the ledger sums them",
    requires: ['accounts.balance', 'accounts.reserved', 'credit_stripes.balance', 'credit_stripes.reserved'],
    sql: `SELECT a.id, a.balance, a.reserved, l.balance AS ledger_balance, l.reserved AS ledger_reserved
          FROM (SELECT a.id, a.balance + coalesce(sum(s.balance), 0) AS balance, a.reserved + coalesce(sum(s.reserved), 0) AS reserved
                FROM accounts a LEFT JOIN credit_stripes s ON s.account_id = a.id GROUP BY a.id) a LEFT JOIN (
            SELECT account_id,
                   coalesce(sum(amount) FILTER (WHERE kind = 'grant'), 0) - coalesce(sum(amount) FILTER (WHERE kind = 'charge'), 0) AS balance,
                   coalesce(sum(amount) FILTER (WHERE kind = 'reserve'), 0) - coalesce(sum(amount) FILTER (WHERE kind = 'release'), 0) AS reserved
            FROM credit_ledger GROUP BY account_id) l ON l.account_id = a.id
          WHERE ${scoped('a.id')} AND (a.balance <> coalesce(l.balance, 0) OR a.reserved <> coalesce(l.reserved, 0))`,
  },
  {
    name: 'delivered_leads_remembered',
    rule: "every delivered lead's key is in account_deliveries, and an excludeDelivered job's leads were claimed by that job",
    requires: ['account_deliveries.dedup_key'],
    sql: `SELECT j.id, l.dedup_key, d.job_id AS claimed_by FROM leads l JOIN jobs j ON j.id = l.job_id
          LEFT JOIN account_deliveries d ON d.account_id = j.account_id AND d.source = j.source AND d.dedup_key = encode(sha256(convert_to(l.dedup_key, 'UTF8')), 'hex')
          WHERE ${scoped('j.account_id')}
            AND (d.job_id IS NULL OR (COALESCE((j.request->>'excludeDelivered')::boolean, false) AND d.job_id <> j.id))`,
  },
  {
    name: 'lead_once_per_batch',
    rule: "a lead (source, dedup key) is delivered at most once per batch; a running batch's children's leads are claimed by them as SHA-256 digests, and a terminal batch keeps no claims",
    requires: ['batch_deliveries.dedup_key'],
    sql: `SELECT j.batch_id, 'delivered by ' || count(*) || ' children' AS problem, l.dedup_key FROM leads l JOIN jobs j ON j.id = l.job_id
          WHERE j.batch_id IS NOT NULL AND ${scoped('j.account_id')} GROUP BY j.batch_id, j.source, l.dedup_key HAVING count(*) > 1
          UNION ALL
          SELECT j.batch_id, 'not claimed by its child' AS problem, l.dedup_key FROM leads l JOIN jobs j ON j.id = l.job_id JOIN batches b ON b.id = j.batch_id
          WHERE b.status = 'running' AND ${scoped('j.account_id')}
            AND NOT EXISTS (SELECT 1 FROM batch_deliveries d WHERE d.batch_id = j.batch_id AND d.source = j.source AND d.job_id = j.id
                              AND d.dedup_key = encode(sha256(convert_to(l.dedup_key, 'UTF8')), 'hex'))
          UNION ALL
          SELECT b.id, 'claim of a ' || b.status || ' batch' AS problem, d.dedup_key FROM batch_deliveries d JOIN batches b ON b.id = d.batch_id
          WHERE ${scoped('b.account_id')} AND (b.status <> 'running' OR d.dedup_key !~ '^[0-9a-f]{64}$')`,
  },
  {
    name: 'idempotency_key_names_own_job',
    rule: 'an Idempotency-Key points at a job of the same account',
    sql: `SELECT k.account_id, k.key, k.job_id, j.account_id AS job_account FROM idempotency_keys k
          LEFT JOIN jobs j ON j.id = k.job_id WHERE ${scoped('k.account_id')} AND (j.id IS NULL OR j.account_id <> k.account_id)`,
  },
];

function tariffRows(): string {
  return Object.entries(TARIFFS)
    .map(([source, t]) => `('${source}', ${Number(t.perItem)}, ${Number(t.minimum)})`)
    .join(', ');
}

export interface Violation {
  invariant: string;
  rule: string;
  rows: Array<Record<string, unknown>>;
}

/**
 * Runs every invariant (or those given) against the database, for the given accounts (all when
 * omitted), in one read-only REPEATABLE READ transaction so they all see one snapshot.
 * Returns the violations; an empty list means every guarantee held.
 */
export async function checkInvariants(
  databaseUrl: string,
  options: { accountIds?: string[]; invariants?: Invariant[] } = {},
): Promise<Violation[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: columns } = await client.query<{ name: string }>(
      `SELECT table_name || '.' || column_name AS name FROM information_schema.columns WHERE table_schema = current_schema()`,
    );
    const present = new Set(columns.map((c) => c.name));
    const violations: Violation[] = [];
    for (const invariant of options.invariants ?? INVARIANTS) {
      if (invariant.requires?.some((column) => !present.has(column))) continue;
      const { rows } = await client.query(`${invariant.sql} LIMIT 20`, [options.accountIds ?? null]);
      if (rows.length > 0) violations.push({ invariant: invariant.name, rule: invariant.rule, rows });
    }
    await client.query('COMMIT');
    return violations;
  } finally {
    await client.end();
  }
}

/** A readable report of violations, for an assertion message. */
export function describeViolations(violations: Violation[]): string {
  return violations.map((v) => `${v.invariant}: ${v.rule}\n${v.rows.map((row) => `  ${JSON.stringify(row)}`).join('\n')}`).join('\n');
}

import type { Database } from '@leadgen/db';

/**
 * What must hold in the database whatever happened to the processes around it: each check is one
 * SQL query over the whole database and names what broke. Empty means all hold.
 */
const CHECKS: Array<[string, string]> = [
  ['a lead stored twice in one result set', 'SELECT job_id || \' \' || dedup_key FROM leads GROUP BY job_id, dedup_key HAVING count(*) > 1'],
  [
    'delivered_count differs from the leads stored',
    `SELECT j.id || ': ' || j.delivered_count || ' counted, ' || count(l.id) || ' stored'
     FROM jobs j LEFT JOIN leads l ON l.job_id = j.id GROUP BY j.id HAVING j.delivered_count <> count(l.id)`,
  ],
  [
    'positions with a gap or a repeat',
    `SELECT job_id FROM leads GROUP BY job_id HAVING min(position) <> 0 OR max(position) <> count(*) - 1 OR count(DISTINCT position) <> count(*)`,
  ],
  ['more than one charge for a job', `SELECT job_id FROM credit_ledger WHERE kind = 'charge' GROUP BY job_id HAVING count(*) > 1`],
  [
    'a terminal job whose reservation is still open',
    `SELECT j.id FROM jobs j
     WHERE j.status NOT IN ('queued', 'running') AND j.credits_reserved > 0
       AND NOT EXISTS (SELECT 1 FROM credit_ledger r WHERE r.job_id = j.id AND r.kind = 'release' AND r.amount = j.credits_reserved)`,
  ],
  [
    'a charge that differs from creditsCharged',
    `SELECT j.id FROM jobs j LEFT JOIN credit_ledger c ON c.job_id = j.id AND c.kind = 'charge'
     WHERE j.status NOT IN ('queued', 'running') AND COALESCE(c.amount, 0) <> COALESCE(j.credits_charged, 0)`,
  ],
  [
    'account counters that differ from the ledger',
    `SELECT a.id FROM accounts a LEFT JOIN (
       SELECT account_id,
         COALESCE(SUM(amount) FILTER (WHERE kind = 'grant'), 0) - COALESCE(SUM(amount) FILTER (WHERE kind = 'charge'), 0) AS balance,
         COALESCE(SUM(amount) FILTER (WHERE kind = 'reserve'), 0) - COALESCE(SUM(amount) FILTER (WHERE kind = 'release'), 0) AS reserved
       FROM credit_ledger GROUP BY account_id) l ON l.account_id = a.id
     WHERE a.balance <> COALESCE(l.balance, 0) OR a.reserved <> COALESCE(l.reserved, 0)`,
  ],
];

export async function invariantViolations(db: Database): Promise<string[]> {
  const found: string[] = [];
  for (const [what, sql] of CHECKS) {
    const { rows } = await db.sql.query<Record<string, string>>(sql);
    for (const row of rows.slice(0, 5)) found.push(`${what}: ${Object.values(row)[0]}`);
  }
  return found;
}

import type { Lead, SubjectEntry } from '@leadgen/domain';
import type { Database } from './client';

export interface PageLead {
  /** place id, profile URL or store domain: one lead per key per result set */
  dedupKey: string;
  lead: Lead;
  /** what of the lead a suppression entry can match (suppressionKeysOf) */
  matches?: SubjectEntry[];
}

export type PageCommit =
  | { kind: 'committed'; deliveredCount: number; requestedCount: number }
  /** the account has a suppression list and the page came without `matches`: nothing was written */
  | { kind: 'needs_matches' }
  /** the job reached a terminal status (cancelled, or settled by another worker): nothing was written */
  | { kind: 'stopped' };

/**
 * Commits one page of a job's leads. A worker killed mid-job loses at most the page in flight; a
 * resumed job re-reading committed pages adds nothing twice; a cancelled job's leads and counts
 * stay frozen even if the cancel message never reached its worker.
 */
export async function commitPage(
  db: Database,
  jobId: string,
  page: PageLead[],
  cursor: string | null,
  /** decision 038: the page's leads the request's filters left out, and the upstream calls made since the last commit */
  extra: { filtered?: number; upstreamCalls?: Record<string, number> } = {},
): Promise<PageCommit> {
  // One statement (prisma/functions/commit_page.sql): lock the job while it is not
  // terminal, insert the page's new leads, advance count and cursor; no row back means terminal.
  // `m` only when the caller read what the leads can match: its absence asks the function whether the account needs it.
  const items = JSON.stringify(
    page.map((p) =>
      p.matches
        ? { k: p.dedupKey, d: p.lead, m: p.matches.map((entry) => ({ t: entry.kind, v: entry.value })) }
        : { k: p.dedupKey, d: p.lead },
    ),
  );
  const { rows } = await db.sql.query<{ o_delivered_count: number; o_requested_count: number; o_needs_matches: boolean }>(
    'SELECT * FROM commit_page($1, $2, $3, $4, $5)',
    [jobId, items, cursor, extra.filtered ?? 0, JSON.stringify(extra.upstreamCalls ?? {})],
  );
  const row = rows[0];
  if (!row) return { kind: 'stopped' };
  if (row.o_needs_matches) return { kind: 'needs_matches' };
  return { kind: 'committed', deliveredCount: row.o_delivered_count, requestedCount: row.o_requested_count };
}

/**
 * Adds a run's upstream calls not committed with a page (an upstream error before any page) to the job, by
 * upstream, while it is not terminal (prisma/functions/record_upstream_calls.sql): one statement, once per run.
 */
export async function recordUpstreamCalls(db: Database, jobId: string, calls: Record<string, number>): Promise<boolean> {
  const { rows } = await db.sql.query<{ recorded: boolean }>('SELECT record_upstream_calls($1, $2) AS recorded', [
    jobId,
    JSON.stringify(calls),
  ]);
  return rows[0]?.recorded === true;
}

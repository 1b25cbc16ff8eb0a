import { chargeFor, JOB_EVENT_OF, type Lead, type Source, type SubjectEntry } from '@leadgen/domain';
import type { Database } from './client';
import { jobColumns, jobFromRow, type JobRow } from './jobs';
import type { Settlement } from './job-settlement';

export interface PageLead {
  /** place id, profile URL or store domain: one lead per key per result set */
  dedupKey: string;
  lead: Lead;
  /** what of the lead a suppression entry can match (suppressionKeysOf) */
  matches?: SubjectEntry[];
}

export type PageCommit =
  /** `settlement`: the commit completed the job and settled it in the same transaction (`merge.settle`) */
  | { kind: 'committed'; deliveredCount: number; requestedCount: number; settlement?: Settlement }
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
  /**
   * What rides on the same transaction (decision 037's hot path, prisma/functions/commit_slice.sql): `start`, the
   * job's deferred start (openJob); `settle`, its settlement as COMPLETE when this commit completes it (the charge
   * of its requested count, the account's held jobs released into its place with a `share`, as recordSettlement).
   */
  merge: { start?: { provider: string; startedAt: Date }; settle?: { source: Source; requestedCount: number; share?: number } } = {},
): Promise<PageCommit> {
  // One statement (prisma/functions/commit_page.sql): lock the job while it is not
  // terminal, insert the page's new leads, advance count and cursor; no row back means terminal.
  // `m` only when the caller read what the leads can match: its absence asks the function whether the account needs it.
  const items = jsonbArray(
    page.map((p) =>
      p.matches
        ? { k: p.dedupKey, d: p.lead, m: p.matches.map((entry) => ({ t: entry.kind, v: entry.value })) }
        : { k: p.dedupKey, d: p.lead },
    ),
  );
  const args = [jobId, items, cursor, extra.filtered ?? 0, JSON.stringify(extra.upstreamCalls ?? {})];
  if (!merge.start && !merge.settle) {
    const { rows } = await db.sql.query<CommitRow>('SELECT * FROM commit_page($1, $2, $3, $4, $5)', args);
    return pageCommitOf(rows[0]);
  }
  const { settle, start } = merge;
  const { rows } = await db.sql.query<CommitRow & JobRow & { webhook_deliveries: string[]; released_jobs: string[] }>(
    `SELECT s.o_delivered_count, s.o_requested_count, s.o_needs_matches, ${jobColumns('(s.settled)')}, s.webhook_deliveries, s.released_jobs
     FROM commit_slice($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) s`,
    [
      ...args,
      start?.provider ?? null,
      start?.startedAt.toISOString() ?? null,
      settle ? chargeFor(settle.source, settle.requestedCount) : null,
      JOB_EVENT_OF.COMPLETE,
      settle?.share ?? null,
    ],
  );
  const row = rows[0];
  const commit = pageCommitOf(row);
  if (commit.kind !== 'committed' || !row || row.id === null) return commit;
  const settlement: Settlement = {
    job: jobFromRow(row),
    settled: true,
    webhookDeliveryIds: row.webhook_deliveries,
    releasedJobIds: row.released_jobs,
  };
  return { ...commit, settlement };
}

/**
 * A page's items as a jsonb parameter in PostgreSQL's binary format (jsonb_recv: the format version, 1, then the JSON
 * text; node-postgres sends a Buffer parameter as binary). Each item is serialized alone and its UTF-8 written into one
 * buffer: one JSON string of the whole page (25 Google leads, ~67 KB of JSON, two-byte once any field holds a character
 * past U+00FF, as Google's opening hours' en dash) cost V8 0.7-1.4 ms a page to make and encode, against 0.5 ms here
 * (issue 32, measured on Node 22 and 24), and sits in the heap until the query is written.
 */
export function jsonbArray(items: readonly unknown[]): Buffer {
  const parts = items.map((item) => JSON.stringify(item));
  let size = 3; // the version byte, [ and ]
  for (const part of parts) size += Buffer.byteLength(part) + 1;
  const out = Buffer.allocUnsafe(size);
  out[0] = 1;
  out[1] = 0x5b; // [
  let at = 2;
  parts.forEach((part, i) => {
    if (i > 0) out[at++] = 0x2c; // ,
    at += out.write(part, at);
  });
  out[at++] = 0x5d; // ]
  return out.subarray(0, at);
}

interface CommitRow {
  o_delivered_count: number;
  o_requested_count: number;
  o_needs_matches: boolean;
}

function pageCommitOf(row: CommitRow | undefined): PageCommit {
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

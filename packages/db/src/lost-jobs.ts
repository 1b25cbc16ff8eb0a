import type { Source } from '@leadgen/domain';
import type { Database } from './client';

export interface StillJob {
  id: string;
  accountId: string;
  source: Source;
}

/**
 * Open jobs of these sources that have not moved (created, released, started, a page committed) since `before`,
 * stillest first: the lost-job sweep's candidates (a younger one may be on its way into its queue). A held job
 * (never released: decision 020) has no entry on purpose and is not one.
 */
export async function stillOpenJobs(db: Database, sources: readonly Source[], before: Date, limit: number): Promise<StillJob[]> {
  const { rows } = await db.sql.query<{ id: string; account_id: string; source: Source }>(
    `SELECT id, account_id, source::text AS source FROM jobs
     WHERE status IN ('queued', 'running') AND (released_at IS NOT NULL OR status = 'running') AND updated_at < $1 AND source::text = ANY($2)
     ORDER BY updated_at LIMIT $3`,
    [before, sources, limit],
  );
  return rows.map((row) => ({ id: row.id, accountId: row.account_id, source: row.source }));
}

/** Which of these jobs are still open now: read again after their queue was asked, so one settled meanwhile is left alone. */
export async function openJobIds(db: Database, ids: readonly string[]): Promise<Set<string>> {
  const { rows } = await db.sql.query<{ id: string }>(`SELECT id FROM jobs WHERE id = ANY($1) AND status IN ('queued', 'running')`, [ids]);
  return new Set(rows.map((row) => row.id));
}

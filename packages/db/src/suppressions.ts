import { SUPPRESSION_KINDS, type SuppressionEntry, type SuppressionKind } from '@leadgen/domain';
import type { Database } from './client';
import type { ReadSide } from './read-replica';

export type SuppressionCounts = Record<SuppressionKind, number>;

export interface StoredSuppression extends SuppressionEntry {
  createdAt: Date;
}

/**
 * Entries already encoded as the statement's two array parameters (PostgreSQL array literals of their kinds and
 * normal values), as the API's upload thread hands them over: the event loop passes two strings, not 100,000.
 */
export interface EncodedSuppressions {
  count: number;
  kinds: string;
  values: string;
}
type Entries = SuppressionEntry[] | EncodedSuppressions;

const sizeOf = (entries: Entries) => (Array.isArray(entries) ? entries.length : entries.count);
const columns = (entries: Entries) =>
  Array.isArray(entries) ? [entries.map((e) => e.kind), entries.map((e) => e.value)] : [entries.kinds, entries.values];

/** Adds entries (already in their normal forms) in one statement; returns how many were new. */
export async function addSuppressions(db: Database, accountId: string, entries: Entries): Promise<number> {
  if (sizeOf(entries) === 0) return 0;
  const result = await db.sql.query(
    `INSERT INTO suppressions (account_id, kind, value)
     SELECT $1, e.kind, e.value FROM unnest($2::"SuppressionKind"[], $3::text[]) AS e(kind, value)
     ON CONFLICT DO NOTHING`,
    [accountId, ...columns(entries)],
  );
  return result.rowCount ?? 0;
}

export type CappedAddition = { added: number } | { overLimit: { held: number; fresh: number } };

/**
 * Adds entries unless the account would then hold more than `maxPerAccount`: entries it holds already
 * do not count again, so sending a list twice near the cap is no error. Uploads of one account are
 * taken one at a time (a transaction-scoped advisory lock on the account, not its row, which
 * generate calls lock), so two concurrent uploads cannot both fit under the cap.
 */
export async function addSuppressionsWithin(
  db: Database,
  accountId: string,
  entries: Entries,
  maxPerAccount: number,
): Promise<CappedAddition> {
  if (sizeOf(entries) === 0) return { added: 0 };
  const client = await db.sql.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('suppressions:' || $1))`, [accountId]);
    // One statement, the entries sent once: what the account holds (its kept counts, suppression_counts_kept.sql), how many of these it does not hold yet, and
    // their insertion only if both together stay within the cap (a 100,000-entry upload is megabytes to encode).
    const { rows } = await client.query<{ held: number; fresh: number; added: number }>(
      `WITH e AS (SELECT DISTINCT kind, value FROM unnest($2::"SuppressionKind"[], $3::text[]) AS e(kind, value)),
            held AS (SELECT COALESCE(sum(entries), 0)::int AS n FROM suppression_counts WHERE account_id = $1),
            fresh AS (SELECT count(*)::int AS n FROM e
                       WHERE NOT EXISTS (SELECT 1 FROM suppressions s WHERE s.account_id = $1 AND s.kind = e.kind AND s.value = e.value)),
            added AS (INSERT INTO suppressions (account_id, kind, value)
                      SELECT $1, e.kind, e.value FROM e WHERE (SELECT n FROM held) + (SELECT n FROM fresh) <= $4
                      ON CONFLICT DO NOTHING RETURNING 1)
       SELECT (SELECT n FROM held) AS held, (SELECT n FROM fresh) AS fresh, (SELECT count(*)::int FROM added) AS added`,
      [accountId, ...columns(entries), maxPerAccount],
    );
    const { held, fresh, added } = rows[0]!;
    await client.query('COMMIT');
    if (held + fresh > maxPerAccount) return { overLimit: { held, fresh } };
    return { added };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Removes entries in one statement; returns how many there were. */
export async function removeSuppressions(db: Database, accountId: string, entries: Entries): Promise<number> {
  if (sizeOf(entries) === 0) return 0;
  const result = await db.sql.query(
    `DELETE FROM suppressions s USING unnest($2::"SuppressionKind"[], $3::text[]) AS e(kind, value)
     WHERE s.account_id = $1 AND s.kind = e.kind AND s.value = e.value`,
    [accountId, ...columns(entries)],
  );
  return result.rowCount ?? 0;
}

/** The account's entries per kind: kept counts (prisma/functions/suppression_counts_kept.sql), three rows whatever the list's length. */
export async function countSuppressions(db: ReadSide, accountId: string): Promise<SuppressionCounts> {
  const { rows } = await db.sql.query<{ kind: SuppressionKind; n: number }>(
    'SELECT kind::text AS kind, entries AS n FROM suppression_counts WHERE account_id = $1',
    [accountId],
  );
  const counts = Object.fromEntries(SUPPRESSION_KINDS.map((kind) => [kind, 0])) as SuppressionCounts;
  for (const row of rows) counts[row.kind] = row.n;
  return counts;
}

/** A page of entries in (kind, value) order, after `after` (keyset: stable while entries change). */
export async function listSuppressions(
  db: ReadSide,
  accountId: string,
  options: { kind?: SuppressionKind; after?: SuppressionEntry; limit: number },
): Promise<StoredSuppression[]> {
  const { rows } = await db.sql.query<{ kind: SuppressionKind; value: string; created_at: Date }>(
    // ORDER BY the table's columns, not the output's `kind` (text): in the primary key's order, a page reads its own
    // rows through the index; by the text it sorted the account's whole list (90 ms at 200,000 entries).
    `SELECT s.kind::text AS kind, s.value, s.created_at FROM suppressions s
     WHERE s.account_id = $1 AND ($2::"SuppressionKind" IS NULL OR s.kind = $2)
       AND ($3::"SuppressionKind" IS NULL OR (s.kind, s.value) > ($3::"SuppressionKind", $4::text))
     ORDER BY s.kind, s.value LIMIT $5`,
    [accountId, options.kind ?? null, options.after?.kind ?? null, options.after?.value ?? null, options.limit],
  );
  return rows.map((row) => ({ kind: row.kind, value: row.value, createdAt: row.created_at }));
}

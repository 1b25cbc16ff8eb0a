import { SUPPRESSION_KINDS, type SuppressionEntry, type SuppressionKind } from '@leadgen/domain';
import type { PoolClient } from 'pg';
import type { Database } from './client';
import type { ReadSide } from './read-replica';

export type SuppressionCounts = Record<SuppressionKind, number>;

export interface StoredSuppression extends SuppressionEntry {
  createdAt: Date;
}

/**
 * Entries already encoded as the statements' two array parameters (PostgreSQL array literals of their kinds and
 * normal values), as the API's upload thread hands them over: the event loop passes strings, not 100,000. In pieces
 * of at most SUPPRESSION_PIECE entries, joined into statements of up to SUPPRESSION_CHUNK (decision 035, amended): a
 * 100,000-entry upload in one statement held a backend's core for seconds; a statement at a time, the caller can
 * yield between them, and ask for smaller ones while others wait.
 */
export interface EncodedSuppressions {
  count: number;
  chunks: EncodedChunk[];
}
export interface EncodedChunk {
  count: number;
  kinds: string;
  values: string;
}
type Entries = SuppressionEntry[] | EncodedSuppressions;

/** The most entries one statement of an upload or a removal writes. */
export const SUPPRESSION_CHUNK = 1_000;
/** The entries of one encoded piece: the least a statement writes (when the caller asks for small ones). */
export const SUPPRESSION_PIECE = 100;

const sizeOf = (entries: Entries) => (Array.isArray(entries) ? entries.length : entries.count);
interface Piece {
  count: number;
  kinds: string[] | string;
  values: string[] | string;
}
/** The entries in pieces of at most SUPPRESSION_PIECE (an encoded upload's own pieces). */
function piecesOf(entries: Entries): Piece[] {
  if (!Array.isArray(entries)) return entries.chunks.filter((c) => c.count > 0);
  const pieces: Piece[] = [];
  for (let i = 0; i < entries.length; i += SUPPRESSION_PIECE) {
    const part = entries.slice(i, i + SUPPRESSION_PIECE);
    pieces.push({ count: part.length, kinds: part.map((e) => e.kind), values: part.map((e) => e.value) });
  }
  return pieces;
}
/** One statement's two parameters from consecutive pieces (array literals joined: `{a,b}` and `{c}` make `{a,b,c}`). */
function joined(pieces: Piece[]): [string[] | string, string[] | string] {
  const join = (parts: Array<string[] | string>) =>
    parts.every((p) => Array.isArray(p)) ? (parts as string[][]).flat() : `{${(parts as string[]).map((p) => p.slice(1, -1)).join(',')}}`;
  return [join(pieces.map((p) => p.kinds)), join(pieces.map((p) => p.values))];
}

/**
 * Called before each statement of a change: the API yields there to other requests (its pacing,
 * decision 049), so a large change is a series of short bursts of a backend, not one long one. It may answer the most
 * entries the next statement should write (SUPPRESSION_CHUNK when it answers nothing). A throw rolls back.
 */
export type BetweenChunks = () => Promise<number | void>;

const INSERT_CHUNK = `INSERT INTO suppressions (account_id, kind, value)
     SELECT $1, e.kind, e.value FROM unnest($2::"SuppressionKind"[], $3::text[]) AS e(kind, value)
     ON CONFLICT DO NOTHING`;
const DELETE_CHUNK = `DELETE FROM suppressions s USING unnest($2::"SuppressionKind"[], $3::text[]) AS e(kind, value)
     WHERE s.account_id = $1 AND s.kind = e.kind AND s.value = e.value`;

/**
 * Runs `sql` on each chunk of `entries` in one transaction (all or nothing), `between` before each
 * statement; `decide` (after each chunk, with the rows changed so far) may stop it: then it rolls back.
 */
async function inChunks<T>(
  db: Database,
  accountId: string,
  entries: Entries,
  sql: string,
  options: {
    lock?: boolean;
    between?: BetweenChunks;
    start?: (client: PoolClient) => Promise<T>;
    decide?: (changed: number, first: T) => boolean;
  },
): Promise<{ changed: number; first: T | undefined; stopped: boolean }> {
  const pieces = piecesOf(entries);
  const client = await db.sql.connect();
  try {
    await client.query('BEGIN');
    if (options.lock) await client.query(`SELECT pg_advisory_xact_lock(hashtext('suppressions:' || $1))`, [accountId]);
    const first = options.start ? await options.start(client) : undefined;
    let changed = 0;
    for (let next = 0, most = SUPPRESSION_CHUNK; next < pieces.length;) {
      // A change of one statement's size is not paced (a small upload never waits for a yield).
      if (options.between && sizeOf(entries) > SUPPRESSION_CHUNK) most = (await options.between()) || SUPPRESSION_CHUNK;
      const from = next;
      for (let n = 0; next < pieces.length && (next === from || n + pieces[next]!.count <= most); next += 1) n += pieces[next]!.count;
      changed += (await client.query(sql, [accountId, ...joined(pieces.slice(from, next))])).rowCount ?? 0;
      if (options.decide && !options.decide(changed, first as T)) {
        await client.query('ROLLBACK');
        return { changed, first, stopped: true };
      }
    }
    await client.query('COMMIT');
    return { changed, first, stopped: false };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Adds entries (already in their normal forms), all or nothing; returns how many were new. */
export async function addSuppressions(db: Database, accountId: string, entries: Entries, between?: BetweenChunks): Promise<number> {
  if (sizeOf(entries) === 0) return 0;
  if (sizeOf(entries) <= SUPPRESSION_CHUNK)
    return (await db.sql.query(INSERT_CHUNK, [accountId, ...joined(piecesOf(entries))])).rowCount ?? 0;
  return (await inChunks(db, accountId, entries, INSERT_CHUNK, { between })).changed;
}

export type CappedAddition = { added: number } | { overLimit: { held: number; fresh: number } };

/**
 * Adds entries unless the account would then hold more than `maxPerAccount`: entries it holds already
 * do not count again, so sending a list twice near the cap is no error. Uploads of one account are
 * taken one at a time (a transaction-scoped advisory lock on the account, not its row, which
 * generate calls lock), so two concurrent uploads cannot both fit under the cap.
 * In one transaction, up to SUPPRESSION_CHUNK entries a statement with `between` before each: what the
 * account holds (its kept counts, suppression_counts_kept.sql), then each chunk inserted (ON CONFLICT DO NOTHING: an
 * entry held, or sent twice, is not new). Once what it holds and what was new pass the cap, the transaction is rolled
 * back and nothing is added (`fresh` then counts the new entries found until then: at least that many were new).
 */
export async function addSuppressionsWithin(
  db: Database,
  accountId: string,
  entries: Entries,
  maxPerAccount: number,
  between?: BetweenChunks,
): Promise<CappedAddition> {
  if (sizeOf(entries) === 0) return { added: 0 };
  const { changed, first, stopped } = await inChunks(db, accountId, entries, INSERT_CHUNK, {
    lock: true,
    between,
    start: async (client) =>
      (
        await client.query<{ n: number }>('SELECT COALESCE(sum(entries), 0)::int AS n FROM suppression_counts WHERE account_id = $1', [
          accountId,
        ])
      ).rows[0]!.n,
    decide: (added, held) => held + added <= maxPerAccount,
  });
  if (stopped) return { overLimit: { held: first!, fresh: changed } };
  return { added: changed };
}

/** Removes entries, all or nothing (up to SUPPRESSION_CHUNK a statement, `between` between them); returns how many there were. */
export async function removeSuppressions(db: Database, accountId: string, entries: Entries, between?: BetweenChunks): Promise<number> {
  if (sizeOf(entries) === 0) return 0;
  if (sizeOf(entries) <= SUPPRESSION_CHUNK)
    return (await db.sql.query(DELETE_CHUNK, [accountId, ...joined(piecesOf(entries))])).rowCount ?? 0;
  return (await inChunks(db, accountId, entries, DELETE_CHUNK, { between })).changed;
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

import type { Database } from './client';

/** How many hex characters of a key's hash the live-key directory keeps: 64 bits, enough to tell a guess. */
export const LIVE_KEY_HASH_PREFIX_CHARS = 16;

/**
 * The leading characters of the hashes of keys that are live (not revoked, not expired) and were created
 * at or after `since` (all of them when null), and PostgreSQL's clock at the read. One indexless scan of
 * api_keys when `since` is null; the unknown-key throttle reads it only while a flood is being refused.
 */
export async function liveKeyHashPrefixes(db: Database, since: Date | null): Promise<{ prefixes: string[]; readAt: Date }> {
  const { rows } = await db.sql.query<{ prefix: string | null; read_at: Date }>(
    `SELECT left(k.key_hash, ${LIVE_KEY_HASH_PREFIX_CHARS}) AS prefix, now() AS read_at
       FROM (SELECT 1) AS one
       LEFT JOIN api_keys k ON k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
                           AND ($1::timestamptz IS NULL OR k.created_at >= $1::timestamptz)`,
    [since],
  );
  return { prefixes: rows.flatMap((row) => (row.prefix === null ? [] : [row.prefix])), readAt: rows[0]!.read_at };
}

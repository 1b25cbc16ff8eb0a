import { LIVE_KEY_HASH_PREFIX_CHARS, liveKeyHashPrefixes, type Database } from '@leadgen/db';

/**
 * What the unknown-key throttle asks once an address is over its limit, instead of refusing: could this
 * key be live? The leading 64 bits of every live key's hash are held in memory, read in full once and
 * then only the keys created since (PostgreSQL's clock, less REREAD_OVERLAP_MS for transactions that
 * committed late), at most once per REFRESH_MS however many requests ask: a flood of made-up keys costs
 * PostgreSQL four small reads a second at most, and a valid key is always let through to the real lookup.
 * A hash held here is only a "may be live": a key revoked or expired since is refused by that lookup.
 */
export interface LiveKeyDirectory {
  mayBeLive(keyHash: string): Promise<boolean>;
}

export const REFRESH_MS = 250;
const REREAD_OVERLAP_MS = 10_000;

export function liveKeyDirectory(db: Database, now: () => number = Date.now): LiveKeyDirectory {
  const prefixes = new Set<string>();
  let readAt: Date | null = null;
  let lastRefreshAt = -Infinity;
  let refreshing: Promise<void> | null = null;

  const refresh = (): Promise<void> =>
    (refreshing ??= (async () => {
      // A key created in the last REFRESH_MS waits for the next read rather than being refused.
      const wait = lastRefreshAt + REFRESH_MS - now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      lastRefreshAt = now();
      const since = readAt === null ? null : new Date(readAt.getTime() - REREAD_OVERLAP_MS);
      const read = await liveKeyHashPrefixes(db, since);
      for (const prefix of read.prefixes) prefixes.add(prefix);
      readAt = read.readAt;
    })().finally(() => {
      refreshing = null;
    }));

  return {
    async mayBeLive(keyHash) {
      const prefix = keyHash.slice(0, LIVE_KEY_HASH_PREFIX_CHARS);
      if (prefixes.has(prefix)) return true;
      await refresh();
      return prefixes.has(prefix);
    },
  };
}

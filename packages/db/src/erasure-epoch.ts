import type { Database } from './client';

/**
 * How old the erasure epoch an API process checks a kept finished-job body against may be (decision 031):
 * a body read before an erasure is never served once this has passed after the erasure committed, and
 * eraseSubject waits it out before it reports, so an erasure that has reported is never undone by a cache.
 */
export const ERASURE_EPOCH_MAX_AGE_MS = 1_000;

/** The erasure epoch: raised by every statement that deletes leads (migration 20261128100000_erasure_epoch). */
export async function readErasureEpoch(db: Database): Promise<number> {
  const { rows } = await db.sql.query<{ epoch: string }>('SELECT "epoch" FROM "erasure_epoch" WHERE "id" = 1');
  return Number(rows[0]?.epoch ?? 0);
}

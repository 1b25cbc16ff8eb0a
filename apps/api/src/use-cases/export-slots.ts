import { randomUUID } from 'node:crypto';
import { errors } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { acquireSlot, releaseSlot } from '@leadgen/rate-limits';
import type { ApiDependencies } from '../dependencies';

/**
 * A download streams a whole selection, the costliest thing a read can be: an account streams at most
 * EXPORTS_PER_ACCOUNT_AT_ONCE at once, shared by every API process (a lease set in Redis). A lease
 * outlives an API process that dies mid-export by LEASE_MS at most; an export longer than that gives
 * its place up early. Without Redis the download goes on, as the rate limit lets calls through.
 */
const LEASE_MS = 10 * 60_000;
const RETRY_AFTER_SECONDS = 5;

/** Takes one of the account's export places, or answers 429; returns how to give it back. */
export async function holdExportSlot(deps: ApiDependencies, accountId: string): Promise<() => Promise<void>> {
  const key = deps.producer.keys.account(accountId).exportSlots;
  const token = randomUUID();
  const capacity = deps.config.api.rateLimit.exportsAtOnce;
  let granted: boolean;
  try {
    granted = await acquireSlot(deps.redis, key, token, capacity, LEASE_MS);
  } catch (error) {
    logger.warn('export places not checked: redis unavailable', { error: (error as Error).message });
    return async () => undefined;
  }
  if (!granted) {
    throw errors.rateLimited(RETRY_AFTER_SECONDS, `${capacity} downloads of this account are streaming already; retry when one has ended`);
  }
  return () => releaseSlot(deps.redis, key, token).catch(() => undefined);
}

import type { RequestHandler, Response } from 'express';
import { errors } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import type { RedisClient, RedisKeys } from '@leadgen/queue';
import { chargeFixedWindow, hitAccountWindow, type AccountWindowCount } from '@leadgen/rate-limits';
import { authenticatedAccount, type KeyAuthenticator } from './authenticate';

const WINDOW_SECONDS = 60;

export interface RateLimitPolicy {
  name: string;
  perMinute: number;
}

/**
 * What a costly call adds to its window beyond its own hit: one call more per ROWS_PER_UNIT rows it
 * streams or entries it writes (a 10,000-lead export or a 10,000-entry upload counts as 101 calls), and
 * PING_EXTRA_UNITS for a ping, which can cost the service up to 8 outbound attempts (1 + 7 retries).
 */
export const ROWS_PER_UNIT = 100;
export const PING_EXTRA_UNITS = 7;
export const costOfEntries = (count: number): number => Math.floor(count / ROWS_PER_UNIT);

type Charge = (units: number) => Promise<{ count: number; ttlSeconds: number } | null>;

/**
 * Adds a costly call's weight to the window the rate limit counted it in (one EVALSHA). With `refuse`
 * (the cost is known before the work) a window it pushes over the limit answers 429 and the work is not
 * done; after the fact (an export already streamed) it only makes the account's next calls wait.
 */
export async function chargeRateLimit(res: Response, units: number, options: { refuse?: boolean } = { refuse: true }): Promise<void> {
  const charge = res.locals.rateLimitCharge as { charge: Charge; perMinute: number; name: string } | undefined;
  if (!charge || units <= 0) return;
  const window = await charge.charge(units);
  if (!window) return;
  const reset = Math.max(1, Math.min(WINDOW_SECONDS, window.ttlSeconds));
  // The answer's RateLimit header says what is left after this call's weight, when it is not sent yet.
  if (!res.headersSent) res.setHeader('RateLimit', `"${charge.name}";r=${Math.max(0, charge.perMinute - window.count)};t=${reset}`);
  if (options.refuse !== false && window.count > charge.perMinute) {
    metrics.rateLimited.inc({ limit: charge.name });
    throw errors.rateLimited(reset);
  }
}

/**
 * Fixed one-minute windows, with the IETF RateLimit-Policy / RateLimit headers
 * (draft-ietf-httpapi-ratelimit-headers) on every answer. One counter per account, policy and minute,
 * shared by every API process: one Redis command per request (hitAccountWindow, an EVALSHA), which
 * also brings back the account's key epoch, so a revoked key is refused here without a command of its
 * own (keys.confirm). When Redis cannot be asked the request goes through unlimited (the limit protects
 * the service, and an unreachable Redis is reported elsewhere), but its key is read again from
 * PostgreSQL rather than trusted from the cache.
 */
export function rateLimit(
  redis: RedisClient,
  redisKeys: RedisKeys,
  policy: RateLimitPolicy,
  keys: Pick<KeyAuthenticator, 'confirm'>,
): RequestHandler {
  return async (_req, res, next) => {
    const account = authenticatedAccount(res.locals);
    const windowStart = Math.floor(Date.now() / 1000 / WINDOW_SECONDS);
    const names = redisKeys.account(account.id);
    let window: AccountWindowCount;
    try {
      window = await hitAccountWindow(
        redis,
        { window: names.rateLimitWindow(policy.name, windowStart), keyEpoch: names.keyEpoch },
        WINDOW_SECONDS + 1,
      );
    } catch (error) {
      logger.warn('rate limit not checked: redis unavailable', { error: (error as Error).message });
      await keys.confirm(res, null);
      next();
      return;
    }
    await keys.confirm(res, window.keyEpoch);
    const windowKey = names.rateLimitWindow(policy.name, windowStart);
    res.locals.rateLimitCharge = {
      name: policy.name,
      perMinute: policy.perMinute,
      charge: ((units) =>
        chargeFixedWindow(redis, windowKey, units, WINDOW_SECONDS + 1).catch((error: Error) => {
          logger.warn('rate limit not charged: redis unavailable', { error: error.message });
          return null;
        })) satisfies Charge,
    };
    const { count } = window;
    const remaining = Math.max(0, policy.perMinute - count);
    const reset = Math.max(1, Math.min(WINDOW_SECONDS, window.ttlSeconds));
    res.setHeader('RateLimit-Policy', `"${policy.name}";q=${policy.perMinute};w=${WINDOW_SECONDS}`);
    res.setHeader('RateLimit', `"${policy.name}";r=${remaining};t=${reset}`);
    if (count > policy.perMinute) {
      metrics.rateLimited.inc({ limit: policy.name });
      throw errors.rateLimited(reset);
    }
    next();
  };
}

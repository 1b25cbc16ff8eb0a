import type { RequestHandler } from 'express';
import { errors } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import type { RedisClient, RedisKeys } from '@leadgen/queue';
import { hitAccountWindow, type AccountWindowCount } from '@leadgen/rate-limits';
import { authenticatedAccount, type KeyAuthenticator } from './authenticate';

const WINDOW_SECONDS = 60;

export interface RateLimitPolicy {
  name: string;
  perMinute: number;
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

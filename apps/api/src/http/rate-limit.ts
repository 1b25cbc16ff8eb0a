import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { errors } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import { hitFixedWindow, type WindowCount } from '@leadgen/queue';
import { authenticatedAccount } from './authenticate';

const WINDOW_SECONDS = 60;

export interface RateLimitPolicy {
  name: string;
  perMinute: number;
}

/**
 * Fixed one-minute windows, with the IETF RateLimit-Policy / RateLimit headers
 * (draft-ietf-httpapi-ratelimit-headers) on every answer. When Redis cannot be asked the request
 * goes through: the limit protects the service, and an unreachable Redis is reported elsewhere.
 * One counter per account, policy and minute, shared by every API process: one Redis command per
 * request (hitFixedWindow, an EVALSHA).
 */
export function rateLimit(redis: Redis, prefix: string, policy: RateLimitPolicy): RequestHandler {
  return async (_req, res, next) => {
    const account = authenticatedAccount(res.locals);
    const windowStart = Math.floor(Date.now() / 1000 / WINDOW_SECONDS);
    const key = `${prefix}:ratelimit:${policy.name}:${account.id}:${windowStart}`;
    let window: WindowCount;
    try {
      window = await hitFixedWindow(redis, key, WINDOW_SECONDS + 1);
    } catch (error) {
      logger.warn('rate limit not checked: redis unavailable', { error: (error as Error).message });
      next();
      return;
    }
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

import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { errors } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import { authenticatedAccount } from './authenticate';

const WINDOW_SECONDS = 60;

// One counter per account, policy and minute, shared by every API process through Redis. Sent
// once per connection and then called by its SHA (ioredis defineCommand: EVALSHA, EVAL on NOSCRIPT).
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('TTL', KEYS[1]) }`;

export interface RateLimitPolicy {
  name: string;
  perMinute: number;
}

/**
 * Fixed one-minute windows, with the IETF RateLimit-Policy / RateLimit headers
 * (draft-ietf-httpapi-ratelimit-headers) on every answer. When Redis cannot be asked the request
 * goes through: the limit protects the service, and an unreachable Redis is reported elsewhere.
 */
type RateLimitRedis = Redis & { rateLimitIncrement(key: string, windowSeconds: number): Promise<[number, number]> };

function withIncrement(redis: Redis): RateLimitRedis {
  if (!('rateLimitIncrement' in redis)) redis.defineCommand('rateLimitIncrement', { numberOfKeys: 1, lua: INCREMENT });
  return redis as RateLimitRedis;
}

export function rateLimit(redis: Redis, prefix: string, policy: RateLimitPolicy): RequestHandler {
  const counters = withIncrement(redis);
  return async (_req, res, next) => {
    const account = authenticatedAccount(res.locals);
    const windowStart = Math.floor(Date.now() / 1000 / WINDOW_SECONDS);
    const key = `${prefix}:ratelimit:${policy.name}:${account.id}:${windowStart}`;
    let count: number;
    let ttl: number;
    try {
      [count, ttl] = await counters.rateLimitIncrement(key, WINDOW_SECONDS + 1);
    } catch (error) {
      logger.warn('rate limit not checked: redis unavailable', { error: (error as Error).message });
      next();
      return;
    }
    const remaining = Math.max(0, policy.perMinute - count);
    const reset = Math.max(1, Math.min(WINDOW_SECONDS, ttl));
    res.setHeader('RateLimit-Policy', `"${policy.name}";q=${policy.perMinute};w=${WINDOW_SECONDS}`);
    res.setHeader('RateLimit', `"${policy.name}";r=${remaining};t=${reset}`);
    if (count > policy.perMinute) {
      metrics.rateLimited.inc({ limit: policy.name });
      throw errors.rateLimited(reset);
    }
    next();
  };
}

import { logger } from '@leadgen/logger';
import type { RedisClient } from '@leadgen/queue';
import { pauseBucket, reserveToken, type TokenBucket } from '@leadgen/rate-limits';
import { ProviderError } from '../lead-provider';
import { raceAbort, sleep } from '../abortable-waits';
import type { RateLimiter } from './rate-limiter';

export interface FleetRateLimiterOptions {
  redis: RedisClient;
  /** e.g. `<QUEUE_PREFIX>:ratelimit:<provider>` */
  key: string;
  ratePerMin: number;
  /** the burst the fleet may send at once; defaults to ten seconds' worth, at least 1 */
  capacity?: number;
}

export function defaultCapacity(ratePerMin: number): number {
  return Math.max(1, Math.floor(ratePerMin / 6));
}

/**
 * An upstream's quota shared by every worker process, so the fleet as a whole stays under it: a
 * token bucket in Redis (its script is @leadgen/rate-limits' rate-limit-scripts.ts). Each call reserves
 * its token in one round trip and then waits locally, so a wait costs no Redis commands; a call that
 * would have to wait past the job's deadline reserves nothing.
 */
export class FleetRateLimiter implements RateLimiter {
  private readonly bucket: TokenBucket;

  constructor(private readonly options: FleetRateLimiterOptions) {
    if (!(options.ratePerMin > 0)) throw new Error('ratePerMin must be positive');
    this.bucket = {
      key: options.key,
      tokensPerMs: options.ratePerMin / 60_000,
      capacity: options.capacity ?? defaultCapacity(options.ratePerMin),
    };
  }

  async acquire(signal: AbortSignal, deadline: number): Promise<void> {
    if (signal.aborted) throw signal.reason;
    const maxWait = deadline - Date.now();
    if (maxWait <= 0) throw new ProviderError('provider_error', `rate limit ${this.options.key}: the job's deadline has passed`);
    const reservation = await this.failOpen(reserveToken(this.options.redis, this.bucket, maxWait), signal);
    // Redis unavailable: fail open. The upstream's own 429s (retried with backoff) still protect
    // the quota, and a Redis outage stops the queue anyway; failing every job would be worse.
    if (reservation === null) return;
    if (!reservation.granted) {
      throw new ProviderError(
        'provider_error',
        `rate limit ${this.options.key}: no request slot before the job's deadline (next in ${reservation.waitMs} ms)`,
      );
    }
    if (reservation.waitMs > 0) await sleep(reservation.waitMs, signal);
  }

  async pause(ms: number): Promise<void> {
    if (ms > 0) await this.failOpen(pauseBucket(this.options.redis, this.bucket, ms), new AbortController().signal);
  }

  private async failOpen<T>(call: Promise<T>, signal: AbortSignal): Promise<T | null> {
    try {
      return await raceAbort(call, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      logger.warn('fleet rate limiter unavailable, continuing without it', { key: this.options.key, error });
      return null;
    }
  }
}

import type { Redis } from 'ioredis';
import { logger } from '@leadgen/logger';
import { ProviderError } from '../lead-provider';
import { raceAbort, sleep } from '../abortable-waits';
import type { RateLimiter } from './rate-limiter';

/**
 * A token bucket in one Redis hash, shared by every worker process, so the fleet as a whole stays
 * under an upstream's quota. The script runs atomically in Redis and uses Redis' own clock, so
 * workers on machines with skewed clocks still agree.
 *
 * A caller *reserves* its token: when the bucket is empty the balance goes negative and the caller
 * is told how long to wait. Reserving instead of polling means waiting costs no Redis round trips,
 * and callers are served in arrival order. A caller that would have to wait past its deadline
 * reserves nothing.
 *
 * ARGV: mode ("acquire" | "pause"), tokens per ms, capacity, max wait (acquire) or pause ms (pause).
 * Returns { granted (0/1), wait ms }.
 */
const SCRIPT = `
local key = KEYS[1]
local mode = ARGV[1]
local rate = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local arg = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', key, 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate)
local granted = 1
local wait = 0
if mode == 'pause' then
  tokens = math.min(tokens, 1 - arg * rate)
else
  if tokens < 1 then wait = math.ceil((1 - tokens) / rate) end
  if wait > arg then return {0, wait} end
  tokens = tokens - 1
end
redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', key, math.ceil((capacity - tokens) / rate) + 60000)
return {granted, wait}
`;

export interface FleetRateLimiterOptions {
  redis: Redis;
  /** e.g. `<QUEUE_PREFIX>:ratelimit:<provider>` */
  key: string;
  ratePerMin: number;
  /** the burst the fleet may send at once; defaults to ten seconds' worth, at least 1 */
  capacity?: number;
}

export function defaultCapacity(ratePerMin: number): number {
  return Math.max(1, Math.floor(ratePerMin / 6));
}

export class FleetRateLimiter implements RateLimiter {
  private readonly ratePerMs: number;
  private readonly capacity: number;

  constructor(private readonly options: FleetRateLimiterOptions) {
    if (!(options.ratePerMin > 0)) throw new Error('ratePerMin must be positive');
    this.ratePerMs = options.ratePerMin / 60_000;
    this.capacity = options.capacity ?? defaultCapacity(options.ratePerMin);
  }

  async acquire(signal: AbortSignal, deadline: number): Promise<void> {
    if (signal.aborted) throw signal.reason;
    const maxWait = deadline - Date.now();
    if (maxWait <= 0) throw new ProviderError('provider_error', `rate limit ${this.options.key}: the job's deadline has passed`);
    const answer = await this.run('acquire', maxWait, signal);
    // Redis unavailable: fail open. The upstream's own 429s (retried with backoff) still protect
    // the quota, and a Redis outage stops the queue anyway; failing every job would be worse.
    if (answer === null) return;
    const [granted, wait] = answer;
    if (granted !== 1) {
      throw new ProviderError('provider_error', `rate limit ${this.options.key}: no request slot before the job's deadline (next in ${wait} ms)`);
    }
    if (wait > 0) await sleep(wait, signal);
  }

  async pause(ms: number): Promise<void> {
    if (ms > 0) await this.run('pause', ms, new AbortController().signal);
  }

  private async run(mode: 'acquire' | 'pause', arg: number, signal: AbortSignal): Promise<[number, number] | null> {
    const call = this.options.redis.eval(SCRIPT, 1, this.options.key, mode, this.ratePerMs, this.capacity, Math.floor(arg));
    try {
      const result = (await raceAbort(call, signal)) as unknown;
      if (Array.isArray(result) && result.length === 2) return [Number(result[0]), Number(result[1])];
      throw new Error(`unexpected answer from the rate limit script: ${JSON.stringify(result)}`);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      logger.warn('fleet rate limiter unavailable, continuing without it', { key: this.options.key, error });
      return null;
    }
  }
}

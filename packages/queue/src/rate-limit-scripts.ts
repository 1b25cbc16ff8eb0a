import type { Redis } from 'ioredis';

/*
 * The Lua behind the service's two rate limits, both kept in the Redis whose connections this
 * package owns (connection.ts), so they live here rather than in the API or the providers, which
 * must not import each other: the API's fixed windows per account (apps/api/src/http/rate-limit.ts)
 * and the workers' token buckets per upstream (providers' upstream/fleet-rate-limiter.ts). Their
 * keys share the `<prefix>:ratelimit:` namespace (docs/ARCHITECTURE.md, "Where state lives").
 *
 * Each script is defined once per connection (ioredis defineCommand) and then sent by its SHA: one
 * EVALSHA per check, the script itself only after a NOSCRIPT (Redis restarted or flushed its
 * scripts). The API's check is on its hot path and must stay that one command.
 */

// INCR, and EXPIRE on the window's first hit. Returns { count, seconds until the key expires }.
const FIXED_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('TTL', KEYS[1]) }`;

/*
 * A token bucket in one Redis hash. It uses Redis' own clock, so workers on machines with skewed
 * clocks still agree. A caller *reserves* its token: when the bucket is empty the balance goes
 * negative and the caller is told how long to wait, so waiting costs no round trips and callers are
 * served in arrival order. A caller that would have to wait past its limit reserves nothing.
 *
 * ARGV: mode ("acquire" | "pause"), tokens per ms, capacity, max wait (acquire) or pause ms (pause).
 * Returns { granted (0/1), wait ms }.
 */
const TOKEN_BUCKET = `
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
return {granted, wait}`;

interface RateLimitCommands {
  rateLimitFixedWindow(key: string, windowSeconds: number): Promise<unknown>;
  rateLimitTokenBucket(key: string, mode: 'acquire' | 'pause', tokensPerMs: number, capacity: number, arg: number): Promise<unknown>;
}

const defined = new WeakSet<Redis>();

function commands(redis: Redis): RateLimitCommands {
  if (!defined.has(redis)) {
    redis.defineCommand('rateLimitFixedWindow', { numberOfKeys: 1, lua: FIXED_WINDOW });
    redis.defineCommand('rateLimitTokenBucket', { numberOfKeys: 1, lua: TOKEN_BUCKET });
    defined.add(redis);
  }
  return redis as unknown as RateLimitCommands;
}

function twoNumbers(reply: unknown, script: string): [number, number] {
  if (Array.isArray(reply) && reply.length === 2) {
    const [a, b] = reply.map(Number) as [number, number];
    if (Number.isFinite(a) && Number.isFinite(b)) return [a, b];
  }
  throw new Error(`unexpected answer from the ${script} script: ${JSON.stringify(reply)}`);
}

export interface WindowCount {
  /** hits in this window, this one included */
  count: number;
  /** until the window's key expires */
  ttlSeconds: number;
}

/** Counts one hit in the window `key` names; the first hit starts its expiry. One command. */
export async function hitFixedWindow(redis: Redis, key: string, windowSeconds: number): Promise<WindowCount> {
  const [count, ttlSeconds] = twoNumbers(await commands(redis).rateLimitFixedWindow(key, windowSeconds), 'fixed window');
  return { count, ttlSeconds };
}

export interface TokenBucket {
  key: string;
  tokensPerMs: number;
  /** the burst the bucket allows at once */
  capacity: number;
}

export interface Reservation {
  /** false: the token would have come after maxWaitMs, and nothing was reserved */
  granted: boolean;
  /** how long the caller waits before using its token (or would have had to) */
  waitMs: number;
}

/** Reserves one token if it can be had within `maxWaitMs`. One command. */
export async function reserveToken(redis: Redis, bucket: TokenBucket, maxWaitMs: number): Promise<Reservation> {
  const reply = await commands(redis).rateLimitTokenBucket(bucket.key, 'acquire', bucket.tokensPerMs, bucket.capacity, Math.floor(maxWaitMs));
  const [granted, waitMs] = twoNumbers(reply, 'token bucket');
  return { granted: granted === 1, waitMs };
}

/** Empties the bucket so that no token is had for `pauseMs` from now (an upstream asked everyone to hold off). */
export async function pauseBucket(redis: Redis, bucket: TokenBucket, pauseMs: number): Promise<void> {
  twoNumbers(await commands(redis).rateLimitTokenBucket(bucket.key, 'pause', bucket.tokensPerMs, bucket.capacity, Math.floor(pauseMs)), 'token bucket');
}

import { runScript, type RedisClient, type RedisScript } from '@leadgen/queue';

/*
 * The Lua behind the service's two rate limits, both kept in the Redis whose connections
 * @leadgen/queue makes (redis-connections.ts), so they live here rather than in the API or the providers, which
 * must not import each other: the API's fixed windows per account (apps/api/src/http/rate-limit.ts)
 * and the workers' token buckets per upstream (providers' upstream/fleet-rate-limiter.ts). Their
 * keys share the `<prefix>:ratelimit:` namespace (docs/ARCHITECTURE.md, "Where state lives").
 *
 * Each runs through @leadgen/queue's runScript (redis-keys.ts, decision 023): one EVALSHA per
 * check, the script itself only after a NOSCRIPT (Redis restarted or flushed its scripts). The API's check is on its hot path and must
 * stay that one command. The account window touches the account's two keys (RedisKeys.account, one
 * hash tag); every other script touches one key, so any key of RedisKeys.key() serves on a cluster.
 */

// INCR, and EXPIRE on the window's first hit. Returns { count, seconds until the key expires }.
const FIXED_WINDOW: RedisScript = {
  name: 'rateLimitFixedWindow',
  keys: 1,
  lua: `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('TTL', KEYS[1]) }`,
};

/*
 * The fixed window of an account's API limit, and the account's key epoch (KEYS[2], 0 when unset),
 * read here so that the API learns of a revocation without a command of its own (RedisKeys.account in
 * @leadgen/queue: both keys share the account's hash tag). Returns { count, seconds until the key expires, key epoch }.
 */
const ACCOUNT_WINDOW: RedisScript = {
  name: 'rateLimitAccountWindow',
  keys: 2,
  lua: `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('TTL', KEYS[1]), tonumber(redis.call('GET', KEYS[2]) or '0') }`,
};

/*
 * A fixed window that counts an attempt only when it has room: check and count in one step, so
 * concurrent attempts cannot pass a check together. ARGV: the limit, the window in seconds.
 * Returns { admitted (0/1), count, seconds until the window ends }.
 */
const ADMIT_WINDOW: RedisScript = {
  name: 'rateLimitAdmitWindow',
  keys: 1,
  lua: `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then
  local ttl = redis.call('TTL', KEYS[1])
  if ttl < 1 then ttl = 1 end
  return { 0, count, ttl }
end
count = redis.call('INCR', KEYS[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return { 1, count, redis.call('TTL', KEYS[1]) }`,
};

// Adds ARGV[1] units to a fixed window (a costly call's weight), starting its expiry if it has none.
// Returns { count, seconds until the window ends }.
const CHARGE_WINDOW: RedisScript = {
  name: 'rateLimitChargeWindow',
  keys: 1,
  lua: `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return { count, redis.call('TTL', KEYS[1]) }`,
};

/*
 * A bounded set of leases (a sorted set scored by expiry, on Redis' clock): expired leases are dropped,
 * then ARGV[1] is added if fewer than ARGV[2] are held, for ARGV[3] ms. A holder that dies loses its
 * lease when it expires. Returns { granted (0/1), leases held }.
 */
const ACQUIRE_SLOT: RedisScript = {
  name: 'rateLimitAcquireSlot',
  keys: 1,
  lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[2]) then return { 0, held } end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return { 1, held + 1 }`,
};

// Gives one admitted attempt back (it turned out not to be what the window limits), never below 0.
const GIVE_BACK: RedisScript = {
  name: 'rateLimitGiveBack',
  keys: 1,
  lua: `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then return redis.call('DECR', KEYS[1]) end
return 0`,
};

/*
 * Raises the account's key epoch to ARGV[1] unless it is higher already (two revocations announced out
 * of order never lower it), and keeps it ARGV[2] ms: long past any cache entry read before it
 * (AUTH_CACHE_MS is at most a minute). Returns the epoch now held.
 */
const RAISE_EPOCH: RedisScript = {
  name: 'raiseKeyEpoch',
  keys: 1,
  lua: `
local held = tonumber(redis.call('GET', KEYS[1]) or '0')
local wanted = tonumber(ARGV[1])
if wanted > held then held = wanted end
redis.call('SET', KEYS[1], tostring(held), 'PX', ARGV[2])
return held`,
};

/*
 * A token bucket in one Redis hash. It uses Redis' own clock, so workers on machines with skewed
 * clocks still agree. A caller *reserves* its token: when the bucket is empty the balance goes
 * negative and the caller is told how long to wait, so waiting costs no round trips and callers are
 * served in arrival order. A caller that would have to wait past its limit reserves nothing.
 *
 * ARGV: mode ("acquire" | "pause"), tokens per ms, capacity, max wait (acquire) or pause ms (pause).
 * Returns { granted (0/1), wait ms }.
 */
const TOKEN_BUCKET: RedisScript = {
  name: 'rateLimitTokenBucket',
  keys: 1,
  lua: `
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
return {granted, wait}`,
};

function numbers(reply: unknown, script: string, length: number): number[] {
  if (Array.isArray(reply) && reply.length === length) {
    const values = reply.map(Number);
    if (values.every(Number.isFinite)) return values;
  }
  throw new Error(`unexpected answer from the ${script} script: ${JSON.stringify(reply)}`);
}

function twoNumbers(reply: unknown, script: string): [number, number] {
  return numbers(reply, script, 2) as [number, number];
}

export interface WindowCount {
  /** hits in this window, this one included */
  count: number;
  /** until the window's key expires */
  ttlSeconds: number;
}

/** Counts one hit in the window `key` names; the first hit starts its expiry. One command. */
export async function hitFixedWindow(redis: RedisClient, key: string, windowSeconds: number): Promise<WindowCount> {
  const [count, ttlSeconds] = twoNumbers(await runScript(redis, FIXED_WINDOW, [key], [windowSeconds]), 'fixed window');
  return { count, ttlSeconds };
}

export interface AccountWindowCount extends WindowCount {
  /** the account's key epoch as Redis holds it (0: none announced, or Redis lost it) */
  keyEpoch: number;
}

/**
 * Counts one hit in an account's window (the first hit starts its expiry) and reads the account's key
 * epoch; both keys come from RedisKeys.account (one hash tag). One command, as a bare window is.
 */
export async function hitAccountWindow(
  redis: RedisClient,
  keys: { window: string; keyEpoch: string },
  windowSeconds: number,
): Promise<AccountWindowCount> {
  const reply = await runScript(redis, ACCOUNT_WINDOW, [keys.window, keys.keyEpoch], [windowSeconds]);
  const [count, ttlSeconds, keyEpoch] = numbers(reply, 'account window', 3) as [number, number, number];
  return { count, ttlSeconds, keyEpoch };
}

export interface Admission extends WindowCount {
  /** false: the window was full, and nothing was counted */
  admitted: boolean;
}

/** Counts an attempt in the window `key` names if it has room for one under `limit`. One command. */
export async function admitToWindow(redis: RedisClient, key: string, limit: number, windowSeconds: number): Promise<Admission> {
  const [admitted, count, ttlSeconds] = numbers(await runScript(redis, ADMIT_WINDOW, [key], [limit, windowSeconds]), 'admit window', 3) as [
    number,
    number,
    number,
  ];
  return { admitted: admitted === 1, count, ttlSeconds };
}

/** Takes back an attempt admitToWindow counted. One command. */
export async function giveBackToWindow(redis: RedisClient, key: string): Promise<void> {
  await runScript(redis, GIVE_BACK, [key], []);
}

/** Adds `units` to the window `key` names (the first charge starts its expiry). One command. */
export async function chargeFixedWindow(redis: RedisClient, key: string, units: number, windowSeconds: number): Promise<WindowCount> {
  const [count, ttlSeconds] = twoNumbers(await runScript(redis, CHARGE_WINDOW, [key], [Math.floor(units), windowSeconds]), 'charge window');
  return { count, ttlSeconds };
}

/** Takes one of at most `capacity` leases in the set `key` names, for `leaseMs`. One command. */
export async function acquireSlot(redis: RedisClient, key: string, token: string, capacity: number, leaseMs: number): Promise<boolean> {
  const [granted] = twoNumbers(await runScript(redis, ACQUIRE_SLOT, [key], [token, capacity, Math.floor(leaseMs)]), 'acquire slot');
  return granted === 1;
}

/** Gives a lease back before it expires. One command. */
export async function releaseSlot(redis: RedisClient, key: string, token: string): Promise<void> {
  await redis.zrem(key, token);
}

/** How long Redis keeps an announced key epoch: far longer than any API process keeps a key (AUTH_CACHE_MS ≤ 60 s). */
export const KEY_EPOCH_KEEP_MS = 24 * 3_600_000;

/** Raises the key epoch at `key` to `epoch` (never lowers it): from the next request on, every API process re-reads keys cached under a lower one. */
export async function announceKeyEpoch(redis: RedisClient, key: string, epoch: number): Promise<number> {
  return Number(await runScript(redis, RAISE_EPOCH, [key], [epoch, KEY_EPOCH_KEEP_MS]));
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
export async function reserveToken(redis: RedisClient, bucket: TokenBucket, maxWaitMs: number): Promise<Reservation> {
  const reply = await runScript(redis, TOKEN_BUCKET, [bucket.key], ['acquire', bucket.tokensPerMs, bucket.capacity, Math.floor(maxWaitMs)]);
  const [granted, waitMs] = twoNumbers(reply, 'token bucket');
  return { granted: granted === 1, waitMs };
}

/** Empties the bucket so that no token is had for `pauseMs` from now (an upstream asked everyone to hold off). */
export async function pauseBucket(redis: RedisClient, bucket: TokenBucket, pauseMs: number): Promise<void> {
  twoNumbers(
    await runScript(redis, TOKEN_BUCKET, [bucket.key], ['pause', bucket.tokensPerMs, bucket.capacity, Math.floor(pauseMs)]),
    'token bucket',
  );
}

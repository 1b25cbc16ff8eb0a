import { createHash } from 'node:crypto';
import { runScript, waitUntilConnected, type RedisClient, type RedisKeys, type RedisScript } from '@leadgen/queue';

/**
 * Login attempts counted per client address and per user name, in Redis so every API process
 * shares them; a successful one is given back, so what stays counted are failures. Fixed windows:
 * the first attempt starts a window of `windowSeconds`. The address
 * limit stops one client guessing; the user-name limit stops a guesser that spreads over addresses,
 * at the price that such an attack also locks the real operator out until the window ends.
 */
export interface LoginLimits {
  perClient: number;
  perUser: number;
  windowSeconds: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perClient: 10, perUser: 30, windowSeconds: 900 };

/*
 * Check and count in one script: an attempt is counted before its password is looked at, so 200
 * attempts sent at once are 200 counts in arrival order and no more than the limit are let through
 * (a check, then a count after the password was compared, let every concurrent attempt pass the
 * check). KEYS: the client's and the user name's windows (one hash tag). ARGV: their limits, the
 * window in seconds. Returns { seconds to wait (0: admitted and counted), client count, user count }.
 */
const ADMIT: RedisScript = {
  name: 'loginThrottleAdmit',
  keys: 2,
  lua: `
local wait = 0
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = tonumber(redis.call('GET', key) or '0')
  if counts[i] >= tonumber(ARGV[i]) then
    local ttl = redis.call('TTL', key)
    if ttl < 1 then ttl = 1 end
    if ttl > wait then wait = ttl end
  end
end
if wait > 0 then return { wait, counts[1], counts[2] } end
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('INCR', key)
  if redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, ARGV[3]) end
end
return { 0, counts[1], counts[2] }`,
};

// The right password gives its count back: an operator's own page loads never lock them out.
const REFUND: RedisScript = {
  name: 'loginThrottleRefund',
  keys: 2,
  lua: `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 0`,
};

export interface LoginAdmission {
  /** seconds to wait before another attempt is looked at; 0 when this one may proceed (it is counted) */
  retryAfter: number;
  /** attempts in the window so far, this one included when admitted, per client and per user */
  client: number;
  user: number;
}

export interface LoginThrottle {
  /** counts the attempt if both windows have room, atomically; otherwise says how long to wait */
  admit(client: string, user: string): Promise<LoginAdmission>;
  /** a successful login is not a failure: its count is given back */
  refund(client: string, user: string): Promise<void>;
}

// The API's Redis client has no offline queue, so a command sent while it is still connecting (just
// after start-up, or a reconnect) fails at once: give the connection a moment before calling it down.
const CONNECTING_GRACE_MS = 1_000;

export function loginThrottle(redis: RedisClient, redisKeys: RedisKeys, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): LoginThrottle {
  // One script reads both counters: they share a hash tag (one slot of a cluster).
  const failures = redisKeys.group('login-failures');
  // Hashed: the user name is whatever a client typed, and must not shape our key space.
  const keys = (client: string, user: string): [string, string] => [
    failures('client', client),
    failures('user', createHash('sha256').update(user).digest('hex').slice(0, 32)),
  ];
  return {
    async admit(client, user) {
      await waitUntilConnected(redis, CONNECTING_GRACE_MS);
      const reply = await runScript(redis, ADMIT, keys(client, user), [limits.perClient, limits.perUser, limits.windowSeconds]);
      const [retryAfter, byClient, byUser] = (Array.isArray(reply) ? reply : []).map(Number);
      if (![retryAfter, byClient, byUser].every(Number.isFinite)) throw new Error('unexpected answer from the login throttle');
      return { retryAfter: retryAfter!, client: byClient!, user: byUser! };
    },
    async refund(client, user) {
      await runScript(redis, REFUND, keys(client, user), []);
    },
  };
}

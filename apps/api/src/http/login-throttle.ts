import { createHash } from 'node:crypto';
import { hitFixedWindow } from '@leadgen/rate-limits';
import { runScript, waitUntilConnected, type RedisClient, type RedisKeys, type RedisScript } from '@leadgen/queue';

/**
 * Failed logins counted per client address and per user name, in Redis so every API process
 * shares them. Fixed windows: the first failure starts a window of `windowSeconds`. The address
 * limit stops one client guessing; the user-name limit stops a guesser that spreads over addresses,
 * at the price that such an attack also locks the real operator out until the window ends.
 */
export interface LoginLimits {
  perClient: number;
  perUser: number;
  windowSeconds: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perClient: 10, perUser: 30, windowSeconds: 900 };

// Seconds until the client may try again (0 = allowed), over both windows in one round trip; a
// failure is counted by the fixed window every rate limit of the service uses (hitFixedWindow).
const CHECK: RedisScript = {
  name: 'loginThrottleCheck',
  keys: 2,
  lua: `
local wait = 0
for i, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0')
  if count >= tonumber(ARGV[i]) then
    local ttl = redis.call('TTL', key)
    if ttl < 1 then ttl = 1 end
    if ttl > wait then wait = ttl end
  end
end
return wait`,
};

export interface LoginThrottle {
  /** seconds to wait before another attempt is looked at; 0 when the attempt may proceed */
  retryAfter(client: string, user: string): Promise<number>;
  /** counts a failed attempt; returns the failures in the window so far, per client and per user */
  recordFailure(client: string, user: string): Promise<{ client: number; user: number }>;
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
    async retryAfter(client, user) {
      await waitUntilConnected(redis, CONNECTING_GRACE_MS);
      return (await runScript(redis, CHECK, keys(client, user), [limits.perClient, limits.perUser])) as number;
    },
    async recordFailure(client, user) {
      const [clientKey, userKey] = keys(client, user);
      // Sent together, so still one round trip.
      const [byClient, byUser] = await Promise.all([
        hitFixedWindow(redis, clientKey, limits.windowSeconds),
        hitFixedWindow(redis, userKey, limits.windowSeconds),
      ]);
      return { client: byClient.count, user: byUser.count };
    },
  };
}

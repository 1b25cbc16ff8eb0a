import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { runScript, waitUntilConnected, type RedisClient, type RedisKeys, type RedisScript } from '@leadgen/queue';

/**
 * Failed logins counted in Redis, so every API process shares them; a successful one is given back, so
 * what stays counted are failures. Fixed windows: the first attempt starts one of `windowSeconds`.
 *
 * What is counted depends on who asks (docs/decisions/032, OWASP's device cookies):
 * - a browser that logged in before shows its device cookie: only that device's own failures count
 *   (`perDevice`), so no stranger's guesses, from any address, can lock the operator out of it;
 * - anyone else is counted per client network (`perClient`: an IPv4 address, an IPv6 /64, which one host
 *   can fill with addresses) and, for all such clients together, per user name (`perUser`): a guesser
 *   spread over many addresses is stopped, at the price of new devices having to wait, never known ones.
 */
export interface LoginLimits {
  perClient: number;
  perUser: number;
  perDevice: number;
  windowSeconds: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perClient: 10, perUser: 30, perDevice: 10, windowSeconds: 900 };

/*
 * Check and count in one script: an attempt is counted before its password is looked at, so 200
 * attempts sent at once are 200 counts in arrival order and no more than the limit are let through
 * (a check, then a count after the password was compared, let every concurrent attempt pass the
 * check). KEYS: the windows that apply (one hash tag). ARGV: their limits, then the window in seconds.
 * Returns { seconds to wait (0: admitted and counted), the count of each window }.
 */
const ADMIT_LUA = `
local window = ARGV[#KEYS + 1]
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
if wait == 0 then
  for i, key in ipairs(KEYS) do
    counts[i] = redis.call('INCR', key)
    if redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, window) end
  end
end
table.insert(counts, 1, wait)
return counts`;

// The right password gives its count back: an operator's own page loads never lock them out.
const REFUND_LUA = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 0`;

// A script is defined on the connection with its number of keys: one per count (1: a device, 2: client and user).
const SCRIPTS = new Map<string, RedisScript>();
function script(name: 'loginThrottleAdmit' | 'loginThrottleRefund', keys: number): RedisScript {
  const id = `${name}${keys}`;
  let found = SCRIPTS.get(id);
  if (!found) SCRIPTS.set(id, (found = { name: id, keys, lua: name === 'loginThrottleAdmit' ? ADMIT_LUA : REFUND_LUA }));
  return found;
}

/** Who is trying: a device the operator logged in from before, or a client network and a user name. */
export type LoginSubject = { device: string } | { client: string; user: string };

export interface LoginAdmission {
  /** seconds to wait before another attempt is looked at; 0 when this one may proceed (it is counted) */
  retryAfter: number;
  /** attempts in each window so far, this one included when admitted */
  counts: Record<string, number>;
}

export interface LoginThrottle {
  /** counts the attempt if every window that applies has room, atomically; otherwise says how long to wait */
  admit(subject: LoginSubject): Promise<LoginAdmission>;
  /** a successful login is not a failure: its count is given back */
  refund(subject: LoginSubject): Promise<void>;
}

/**
 * The network a client address is counted under: an IPv4 address as it is (IPv4-mapped IPv6 included), an
 * IPv6 address by its /64, the smallest block a site is given. Anything else (a name) as it is.
 */
export function clientNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const groups = (parsed as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
  return `${groups.join(':')}::/64`;
}

// The API's Redis client has no offline queue, so a command sent while it is still connecting (just
// after start-up, or a reconnect) fails at once: give the connection a moment before calling it down.
const CONNECTING_GRACE_MS = 1_000;

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);

export function loginThrottle(redis: RedisClient, redisKeys: RedisKeys, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): LoginThrottle {
  // One script reads every counter: they share a hash tag (one slot of a cluster).
  const failures = redisKeys.group('login-failures');
  // Hashed: the user name is whatever a client typed, and must not shape our key space.
  const windows = (subject: LoginSubject): Array<{ name: string; key: string; limit: number }> =>
    'device' in subject
      ? [{ name: 'device', key: failures('device', digest(subject.device)), limit: limits.perDevice }]
      : [
          { name: 'client', key: failures('client', clientNetwork(subject.client)), limit: limits.perClient },
          { name: 'user', key: failures('user', digest(subject.user)), limit: limits.perUser },
        ];
  return {
    async admit(subject) {
      await waitUntilConnected(redis, CONNECTING_GRACE_MS);
      const applying = windows(subject);
      const args = [...applying.map((w) => w.limit), limits.windowSeconds];
      const reply = await runScript(
        redis,
        script('loginThrottleAdmit', applying.length),
        applying.map((w) => w.key),
        args,
      );
      const [retryAfter, ...counts] = (Array.isArray(reply) ? reply : []).map(Number);
      if (counts.length !== applying.length || ![retryAfter, ...counts].every(Number.isFinite))
        throw new Error('unexpected answer from the login throttle');
      return { retryAfter: retryAfter!, counts: Object.fromEntries(applying.map((w, i) => [w.name, counts[i]!])) };
    },
    async refund(subject) {
      const applying = windows(subject);
      await runScript(
        redis,
        script('loginThrottleRefund', applying.length),
        applying.map((w) => w.key),
        [],
      );
    },
  };
}

import { createHash, randomUUID } from 'node:crypto';
import { runScript, type RedisClient, type RedisKeys, type RedisScript } from '@leadgen/queue';

/**
 * Fleet-wide fairness between webhook targets and between accounts: at most `perTarget` attempts in
 * flight to one endpoint (or one account's webhookUrl host), so an endpoint that never answers holds that many of
 * the fleet's slots and no more; at most `perAccount` in flight for one account across all its targets,
 * so an account with many such endpoints leaves the other accounts their slots; and an endpoint whose
 * last attempts timed out gets a shorter time limit, so its slots free sooner. The target's leases and
 * streak live in Redis under the target's hash tag, the account's leases in one key under the account's
 * (decision 023: each script touches one slot), entered and left with one EVALSHA (or ZREM) each.
 */
export interface TargetGateOptions {
  perTarget: number;
  /** WEBHOOK_CONCURRENCY_PER_ACCOUNT: attempts in flight for one account across its targets; 0, no cap */
  perAccount: number;
  /** WEBHOOK_TIMEOUT_MS: a target in good standing gets all of it */
  timeoutMs: number;
}

/** Timed-out attempts in a row after which a target gets SHORT_TIMEOUT_SHARE of the time limit. */
export const TIMEOUT_STREAK = 2;
export const SHORT_TIMEOUT_SHARE = 0.2;
const SHORT_TIMEOUT_FLOOR_MS = 1_000;
// How long a streak is remembered without a new timeout: a target that was down an hour ago starts afresh.
const STREAK_KEEP_SECONDS = 3_600;

/*
 * KEYS: the target's in-flight lease set (scored by expiry, on Redis' clock) and its timeout streak.
 * ARGV: a lease token, the capacity, the lease in ms. Expired leases (a worker that died mid-attempt)
 * are dropped first. Returns { granted (0/1), timeout streak }.
 */
const ENTER: RedisScript = {
  name: 'webhookTargetEnter',
  keys: 2,
  lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local streak = tonumber(redis.call('GET', KEYS[2]) or '0')
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return { 0, streak } end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return { 1, streak }`,
};

/*
 * KEYS: the account's in-flight lease set (scored by expiry, on Redis' clock). ARGV: a lease token, the
 * capacity, the lease in ms. Expired leases are dropped first. Returns 1 when granted, 0 when full.
 */
const ACCOUNT_ENTER: RedisScript = {
  name: 'webhookAccountEnter',
  keys: 1,
  lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`,
};

// Gives the lease back and moves the streak: one more on a timeout (kept an hour), cleared on any answer.
const LEAVE: RedisScript = {
  name: 'webhookTargetLeave',
  keys: 2,
  lua: `
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
else
  redis.call('DEL', KEYS[2])
end
return 0`,
};

export type TargetPass =
  | { granted: false; busy: 'target' | 'account' }
  | { granted: true; timeoutMs: number; leave(outcome: { timedOut: boolean; answered: boolean }): Promise<void> };

export interface TargetGate {
  /** a place for one attempt to `target` on behalf of `accountId`: the target's first, then the account's */
  enter(target: string, accountId: string): Promise<TargetPass>;
}

/**
 * The target a delivery is gated on: its endpoint (an account's own), or for a job's own webhookUrl the
 * URL's origin as seen by that account (hashed with the account's id). A host is never one target across
 * accounts: an account whose webhookUrl is a tarpit holds its own places and shortens its own time limit
 * there, and another account sending to the same host is gated apart (issue 31, finding 2).
 */
export function webhookTargetOf(delivery: { endpointId: string | null; url: string; accountId: string }): string {
  if (delivery.endpointId) return delivery.endpointId;
  let origin = delivery.url;
  try {
    origin = new URL(delivery.url).origin;
  } catch {
    // An unparsable URL fails its attempt anyway; it is gated on its own text.
  }
  return `url:${createHash('sha256').update(`${delivery.accountId}\n${origin}`).digest('hex').slice(0, 32)}`;
}

/** The time limit for a target with this many timed-out attempts in a row. */
export function timeoutFor(streak: number, timeoutMs: number): number {
  return streak >= TIMEOUT_STREAK ? Math.max(SHORT_TIMEOUT_FLOOR_MS, Math.round(timeoutMs * SHORT_TIMEOUT_SHARE)) : timeoutMs;
}

export function targetGate(redis: RedisClient, keys: RedisKeys, options: TargetGateOptions): TargetGate {
  // The lease outlives the attempt's own limit a little: a worker that dies mid-attempt frees its place then.
  const leaseMs = options.timeoutMs + 5_000;
  return {
    async enter(target, accountId) {
      const names = keys.webhookTarget(target);
      const token = randomUUID();
      const reply = await runScript(redis, ENTER, [names.inFlight, names.timeoutStreak], [token, options.perTarget, leaseMs]);
      const [granted, streak] = (Array.isArray(reply) ? reply : []).map(Number);
      if (granted !== 1) return { granted: false, busy: 'target' };
      // The account's place, in its own slot (a second script: the two keys' hash tags differ). Refused,
      // the target's place goes back at once; a process dying in between leaves it to lapse with the lease.
      const accountKey = options.perAccount > 0 ? keys.account(accountId).webhookInFlight : null;
      if (accountKey !== null) {
        const admitted = await runScript(redis, ACCOUNT_ENTER, [accountKey], [token, options.perAccount, leaseMs]).catch(
          async (error: Error) => {
            await redis.zrem(names.inFlight, token).catch(() => undefined);
            throw error;
          },
        );
        if (Number(admitted) !== 1) {
          await redis.zrem(names.inFlight, token);
          return { granted: false, busy: 'account' };
        }
      }
      const leaveAccount = async () => {
        if (accountKey !== null) await redis.zrem(accountKey, token);
      };
      return {
        granted: true,
        timeoutMs: timeoutFor(streak ?? 0, options.timeoutMs),
        async leave({ timedOut, answered }) {
          // Neither a timeout nor an answer (refused by the SSRF guard, a reset): the streak stays as it is.
          if (!timedOut && !answered) {
            await Promise.all([redis.zrem(names.inFlight, token), leaveAccount()]);
            return;
          }
          await Promise.all([
            runScript(redis, LEAVE, [names.inFlight, names.timeoutStreak], [token, timedOut ? '1' : '0', STREAK_KEEP_SECONDS]),
            leaveAccount(),
          ]);
        },
      };
    },
  };
}

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
 * A delivery refused a place is parked in the refusing target's or account's parked set (a sorted set by
 * arrival, in the same slot) and the next attempt to leave there answers the one parked longest, to be woken:
 * a busy account's deliveries wait outside the queue instead of being taken again and again ahead of others'.
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
// A parked set untouched this long is dropped: its deliveries' own backstop (PARKED_BACKSTOP_MS) has long come.
const PARKED_KEEP_MS = 15 * 60_000;

/*
 * KEYS: the target's in-flight lease set (scored by expiry, on Redis' clock), its timeout streak and its parked
 * deliveries. ARGV: a lease token, the capacity, the lease in ms, the delivery. Expired leases (a worker that died
 * mid-attempt) are dropped first; a delivery granted a place is no longer parked. Returns { granted (0/1), streak }.
 */
const ENTER: RedisScript = {
  name: 'webhookTargetEnter',
  keys: 3,
  lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local streak = tonumber(redis.call('GET', KEYS[2]) or '0')
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return { 0, streak } end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[4])
return { 1, streak }`,
};

/*
 * KEYS: the account's in-flight lease set (scored by expiry, on Redis' clock) and its parked deliveries.
 * ARGV: a lease token, the capacity, the lease in ms, the delivery. Expired leases are dropped first.
 * Returns 1 when granted, 0 when full.
 */
const ACCOUNT_ENTER: RedisScript = {
  name: 'webhookAccountEnter',
  keys: 2,
  lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[4])
return 1`,
};

// Gives the target's lease back and moves the streak: one more on a timeout (kept an hour), cleared on any
// answer (ARGV[2] '1' a timeout, '0' an answer, '' neither). Returns the delivery parked longest there, if any.
const LEAVE: RedisScript = {
  name: 'webhookTargetLeave',
  keys: 3,
  lua: `
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
elseif ARGV[2] == '0' then
  redis.call('DEL', KEYS[2])
end
local woken = redis.call('ZPOPMIN', KEYS[3])
return woken[1] or false`,
};

// Gives the account's lease back; returns the account's delivery parked longest, if any.
const ACCOUNT_LEAVE: RedisScript = {
  name: 'webhookAccountLeave',
  keys: 2,
  lua: `
redis.call('ZREM', KEYS[1], ARGV[1])
local woken = redis.call('ZPOPMIN', KEYS[2])
return woken[1] or false`,
};

/*
 * KEYS: the in-flight lease set that refused a delivery (the target's or the account's) and its parked set.
 * ARGV: the delivery, the capacity, how long the parked set is kept. Parks the delivery (keeping its first
 * place if it was parked before) unless a place has freed since the refusal: 1 parked, 0 room now.
 */
const PARK: RedisScript = {
  name: 'webhookPark',
  keys: 2,
  lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[2], 'NX', now, ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1`,
};

export type TargetPass =
  // `woken`: the deliveries parked where a place this refusal gave back was (to wake, as a leave's)
  | { granted: false; busy: 'target' | 'account'; woken: string[] }
  | {
      granted: true;
      timeoutMs: number;
      /** gives the places back; answers the deliveries parked longest at the target and the account (to wake) */
      leave(outcome: { timedOut: boolean; answered: boolean }): Promise<string[]>;
    };

/**
 * An account's place taken before its delivery is read (`enterAccount`), handed to `enter` or given back; given back,
 * it answers the account's delivery parked longest (to wake): that one waited for this very place.
 */
export type AccountPass = { granted: false } | { granted: true; token: string; giveBack(): Promise<string[]> };

export interface TargetGate {
  /**
   * The account's place alone, before anything of the delivery is read from PostgreSQL (its entry names its account):
   * a delivery its account has no room for is parked without a read. Granted, the pass goes to `enter` (or back).
   * Null when accounts are not capped (WEBHOOK_CONCURRENCY_PER_ACCOUNT 0).
   */
  enterAccount(accountId: string, deliveryId: string): Promise<AccountPass | null>;
  /**
   * A place for one attempt of `deliveryId` to `target` on behalf of `accountId`: the target's first, then the
   * account's, unless `accountPass` holds it already (refused at the target, that place is given back too).
   */
  enter(target: string, accountId: string, deliveryId?: string, accountPass?: AccountPass & { granted: true }): Promise<TargetPass>;
  /**
   * Parks a delivery refused a place (`busy` says whose) until an attempt there ends: that attempt's `leave`
   * answers it to be woken. False when a place freed since the refusal (the delivery should go again now).
   */
  park(refused: { busy: 'target' | 'account'; target: string; accountId: string }, deliveryId: string): Promise<boolean>;
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

/** The delivery ids the scripts answered (false or null where nothing was parked), once each. */
function wokenIds(replies: unknown[]): string[] {
  return [...new Set(replies.filter((id): id is string => typeof id === 'string' && id !== ''))];
}

export function targetGate(redis: RedisClient, keys: RedisKeys, options: TargetGateOptions): TargetGate {
  // The lease outlives the attempt's own limit a little: a worker that dies mid-attempt frees its place then.
  const leaseMs = options.timeoutMs + 5_000;
  return {
    async enterAccount(accountId, deliveryId) {
      if (options.perAccount <= 0) return null;
      const account = keys.account(accountId);
      const token = randomUUID();
      const admitted = await runScript(
        redis,
        ACCOUNT_ENTER,
        [account.webhookInFlight, account.webhookParked],
        [token, options.perAccount, leaseMs, deliveryId],
      );
      if (Number(admitted) !== 1) return { granted: false };
      // Given back unused (its delivery was not pending, or its target refused it), the place wakes the account's
      // delivery parked longest: parked while this pass held the place, it would wait for its backstop otherwise.
      return {
        granted: true,
        token,
        giveBack: async () => wokenIds([await runScript(redis, ACCOUNT_LEAVE, [account.webhookInFlight, account.webhookParked], [token])]),
      };
    },
    async enter(target, accountId, deliveryId = '', accountPass) {
      const names = keys.webhookTarget(target);
      const token = accountPass?.token ?? randomUUID();
      const reply = await runScript(
        redis,
        ENTER,
        [names.inFlight, names.timeoutStreak, names.parked],
        [token, options.perTarget, leaseMs, deliveryId],
      );
      const [granted, streak] = (Array.isArray(reply) ? reply : []).map(Number);
      if (granted !== 1) return { granted: false, busy: 'target', woken: (await accountPass?.giveBack()) ?? [] };
      // The account's place, in its own slot (a second script: the two keys' hash tags differ). Refused,
      // the target's place goes back at once; a process dying in between leaves it to lapse with the lease.
      const account = options.perAccount > 0 ? keys.account(accountId) : null;
      if (account !== null && !accountPass) {
        const admitted = await runScript(
          redis,
          ACCOUNT_ENTER,
          [account.webhookInFlight, account.webhookParked],
          [token, options.perAccount, leaseMs, deliveryId],
        ).catch(async (error: Error) => {
          await redis.zrem(names.inFlight, token).catch(() => undefined);
          throw error;
        });
        if (Number(admitted) !== 1) {
          // the target's place back, waking the target's delivery parked longest (the streak as it was)
          const fromTarget = await runScript(
            redis,
            LEAVE,
            [names.inFlight, names.timeoutStreak, names.parked],
            [token, '', STREAK_KEEP_SECONDS],
          );
          return { granted: false, busy: 'account', woken: wokenIds([fromTarget]) };
        }
      }
      return {
        granted: true,
        timeoutMs: timeoutFor(streak ?? 0, options.timeoutMs),
        async leave({ timedOut, answered }) {
          // Neither a timeout nor an answer (refused by the SSRF guard, a reset): the streak stays as it is.
          const [fromTarget, fromAccount] = await Promise.all([
            runScript(
              redis,
              LEAVE,
              [names.inFlight, names.timeoutStreak, names.parked],
              [token, timedOut ? '1' : answered ? '0' : '', STREAK_KEEP_SECONDS],
            ),
            account !== null ? runScript(redis, ACCOUNT_LEAVE, [account.webhookInFlight, account.webhookParked], [token]) : null,
          ]);
          return wokenIds([fromTarget, fromAccount]);
        },
      };
    },
    async park({ busy, target, accountId }, deliveryId) {
      const [inFlight, parked, capacity] =
        busy === 'account'
          ? [keys.account(accountId).webhookInFlight, keys.account(accountId).webhookParked, options.perAccount]
          : [keys.webhookTarget(target).inFlight, keys.webhookTarget(target).parked, options.perTarget];
      return Number(await runScript(redis, PARK, [inFlight, parked], [deliveryId, capacity, PARKED_KEEP_MS])) === 1;
    },
  };
}

import calculateSlot from 'cluster-key-slot';
import type { RedisClient } from './redis-connections';

/*
 * Every Redis key and channel the service uses is named here, and every Lua script runs through
 * runScript below, so that one rule holds wherever Redis is a cluster (decision 023):
 *
 *   a command or script touches one key, or keys that share one hash tag.
 *
 * - `key(...)`: a key used alone (a one-key command, a one-key script). Keys spread over the slots.
 * - `group(name)(...)`: keys a multi-key command or script uses together. They carry the hash tag
 *   `{<prefix>:<name>}`, so they sit in one slot whatever the topology.
 * - `queuePrefix(queue)`: BullMQ's prefix for one queue. BullMQ's scripts touch many keys of one
 *   queue, so on a cluster each queue gets its own tag (`{leadgen:google_maps}`) and the queues spread
 *   over the nodes; on one node (or Sentinel) it is QUEUE_PREFIX as before, so no key is renamed.
 * - channels: pub/sub is not keyed by slot (PUBLISH reaches every node of a cluster).
 *
 * A QUEUE_PREFIX that carries a hash tag itself (`{leadgen}`) puts every key in that one slot.
 */
export class RedisKeys {
  /** true when QUEUE_PREFIX carries its own `{hash tag}` */
  readonly tagged: boolean;

  constructor(
    readonly prefix: string,
    readonly cluster: boolean,
  ) {
    this.tagged = /\{[^{}]+\}/.test(prefix);
  }

  /** BullMQ's `prefix` option for one queue */
  queuePrefix(queue: string): string {
    return this.cluster && !this.tagged ? `{${this.prefix}:${queue}}` : this.prefix;
  }

  /** a key used on its own: one-key commands and one-key scripts only */
  key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  /** names keys that one command or script may use together: they share the hash tag of `name` */
  group(name: string): (...parts: string[]) => string {
    const tag = this.tagged ? this.prefix : `{${this.prefix}:${name}}`;
    return (...parts) => [tag, ...parts].join(':');
  }

  /**
   * The keys of one account that one script reads together: the API's rate-limit window and the
   * account's key epoch (raised when a key is revoked), so the rate-limit check learns of a revocation
   * in the same EVALSHA. A group per account keeps them in one slot while the accounts spread.
   */
  account(accountId: string): AccountRedisKeys {
    const key = this.group(`acct:${accountId}`);
    return {
      rateLimitWindow: (policy, windowStart) => key('ratelimit', policy, String(windowStart)),
      keyEpoch: key('key-epoch'),
      exportSlots: key('export-slots'),
      pingWindow: (endpointId, windowStart) => key('pings', endpointId, String(windowStart)),
      webhookInFlight: key('webhooks-in-flight'),
      webhookParked: key('webhooks-parked'),
      webhookWaiting: key('webhooks-waiting'),
    };
  }

  /**
   * The keys of one webhook target (an endpoint, or a job's webhookUrl host) that one script uses
   * together: the deliveries in flight to it, its streak of timed-out attempts and the deliveries parked until a
   * place frees.
   */
  webhookTarget(target: string): { inFlight: string; timeoutStreak: string; parked: string } {
    const key = this.group(`webhook-target:${target}`);
    return { inFlight: key('in-flight'), timeoutStreak: key('timeouts'), parked: key('parked') };
  }

  /** a pub/sub channel between the API processes and the worker fleet */
  channel(name: string): string {
    return `${this.prefix}:events:${name}`;
  }
}

/** The Redis keys of one account (RedisKeys.account): they share the hash tag `{<prefix>:acct:<id>}`. */
export interface AccountRedisKeys {
  /** the fixed window of an API rate-limit policy for the minute `windowStart` (minutes since the epoch) */
  rateLimitWindow(policy: string, windowStart: number): string;
  /** the highest key epoch announced for the account (a key was revoked): see announceKeyEpoch in @leadgen/rate-limits */
  readonly keyEpoch: string;
  /** the account's downloads streaming now, a sorted set of leases (acquireSlot in @leadgen/rate-limits) */
  readonly exportSlots: string;
  /** the pings sent to one of the account's webhook endpoints in the minute `windowStart` */
  pingWindow(endpointId: string, windowStart: number): string;
  /** the account's webhook attempts in flight across all its targets, a sorted set of leases (the worker's target gate) */
  readonly webhookInFlight: string;
  /** the account's deliveries refused a place because it held its share, waiting for one of its attempts to end */
  readonly webhookParked: string;
  /** the account's webhook queue entries added and not yet taken (a counter): the next entry's turn (webhook-queue.ts) */
  readonly webhookWaiting: string;
}

/** The Redis Cluster hash slot of a key. */
export function slotOf(key: string): number {
  return calculateSlot(key);
}

/** Throws unless every key lies in one hash slot: a multi-key command across slots fails on a cluster (CROSSSLOT). */
export function assertOneSlot(keys: readonly string[]): void {
  if (keys.length > 1 && calculateSlot.generateMulti([...keys]) === -1) {
    throw new Error(`redis keys in different hash slots (use RedisKeys.group for keys used together): ${keys.join(', ')}`);
  }
}

/** A Lua script and how many of its arguments are keys. */
export interface RedisScript {
  readonly name: string;
  readonly keys: number;
  readonly lua: string;
}

interface ScriptCommands {
  [name: string]: (...args: Array<string | number>) => Promise<unknown>;
}

const defined = new WeakMap<RedisClient, Set<string>>();

/**
 * Runs a script: one EVALSHA (the script itself only after a NOSCRIPT), defined once per connection.
 * Its keys must share one slot, on one node too, so that a key that would break a cluster fails every test.
 */
export async function runScript(
  redis: RedisClient,
  script: RedisScript,
  keys: readonly string[],
  args: ReadonlyArray<string | number>,
): Promise<unknown> {
  if (keys.length !== script.keys) throw new Error(`the ${script.name} script takes ${script.keys} keys, not ${keys.length}`);
  assertOneSlot(keys);
  let names = defined.get(redis);
  if (!names) defined.set(redis, (names = new Set()));
  if (!names.has(script.name)) {
    redis.defineCommand(script.name, { numberOfKeys: script.keys, lua: script.lua });
    names.add(script.name);
  }
  return (redis as unknown as ScriptCommands)[script.name]!(...keys, ...args);
}

import type { Queue } from 'bullmq';
import { waitUntilConnected, type RedisClient } from './redis-connections';
import { runScript, type RedisScript } from './redis-keys';

// A write that changes nothing: DEL of a key of the queue's that never exists (a DEL that deletes
// nothing is not replicated). A write, so that a read-only replica refuses it as it would an enqueue.
const QUEUE_PROBE: RedisScript = { name: 'leadgenQueueProbe', keys: 1, lua: "return redis.call('DEL', KEYS[1])" };

const PROBE_CONNECT_GRACE_MS = 1_000;

/**
 * What readiness asks of a queue before calling the process ready: a script on the queue's own
 * slot, as BullMQ's commands are. A cluster node reached as a single node (MOVED), a read-only
 * replica, a missing script or key permission fail here, where a PING would still answer.
 */
export async function probeQueue(connection: RedisClient, queue: Queue): Promise<void> {
  // A fail-fast connection refuses commands while it connects (just after start, a reconnect).
  await waitUntilConnected(connection, PROBE_CONNECT_GRACE_MS);
  await runScript(connection, QUEUE_PROBE, [queue.toKey('readiness-probe')], []);
}

/** Why a Redis that answers cannot serve a queue: the state word and detail readiness reports. */
export interface RedisRefusal {
  state: string;
  detail: string;
}

// Redis' own error replies, by their first word. None carries an address, so they may be shown on a public /readyz.
const REFUSALS: Array<[RegExp, RedisRefusal]> = [
  // A script whose declared key this node serves but which reaches a key it does not (BullMQ's, past a probe that
  // happened to land on a local slot) gets the second.
  [
    /^(MOVED|ASK)\b|non local key in a cluster node/,
    { state: 'cluster_node', detail: 'redis is a cluster node reached as a single node: set REDIS_CLUSTER_NODES' },
  ],
  [/^CROSSSLOT\b/, { state: 'cross_slot', detail: 'redis refused keys of different cluster slots' }],
  [/^CLUSTERDOWN\b/, { state: 'cluster_down', detail: 'the redis cluster does not serve every slot' }],
  [/^READONLY\b/, { state: 'read_only', detail: 'redis is a read-only replica: point at the primary, or use REDIS_SENTINELS' }],
  [/^NOPERM\b/, { state: 'no_permission', detail: "redis' ACL refuses the queue's keys or scripts to this user" }],
  [/^NOSCRIPT\b|unknown command/i, { state: 'no_scripting', detail: 'redis refuses Lua scripts, which the queue needs' }],
  [/^(MASTERDOWN|LOADING|TRYAGAIN)\b/, { state: 'not_serving', detail: 'redis is not serving yet (loading, or its primary is away)' }],
  [/sentinel|master/i, { state: 'sentinel', detail: 'the sentinels name no reachable primary for REDIS_SENTINEL_NAME' }],
];

/**
 * Runs a probe for readiness: `ok`, the reason Redis refused (a cluster node, a replica, ...), or
 * it throws when Redis does not answer at all (readiness reports that as `unavailable`).
 */
export async function probeRedis(probe: () => Promise<unknown>): Promise<'ok' | RedisRefusal> {
  try {
    await probe();
    return 'ok';
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const refusal = REFUSALS.find(([pattern]) => pattern.test(message));
    if (refusal) return refusal[1];
    throw error;
  }
}

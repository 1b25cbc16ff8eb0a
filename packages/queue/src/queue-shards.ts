import { SOURCES, type Source } from '@leadgen/domain';
import { QUEUE_NAMES } from './queue-names';

/*
 * A source's queue in shards (decision 048). BullMQ keeps every key of one queue under one hash tag on a cluster
 * (redis-keys.ts), so one queue is one slot and one node, whatever the cluster's size. QUEUE_SHARDS queues per source
 * spread a source over slots: each is a BullMQ queue of its own (its own tag), an account's jobs all go to one of
 * them, chosen by a stable hash of the account id, and every worker of the source takes from all of them.
 *
 * Shard 0 is the source's queue as it always was (`google_maps`), so QUEUE_SHARDS=1 renames no key and an
 * existing deployment raises the count without a drain; shard k > 0 is `<source>.<k>` (BullMQ refuses `:`).
 * NEVER RENAME these either.
 *
 * By account rather than by job: the jobs one release adds (one account's, decision 020) are one round trip in one
 * slot (a MULTI on a cluster must be), and an account's jobs keep their order within its shard. Fairness among
 * accounts is PostgreSQL's release (decision 020), not the queue's order, so it does not depend on the shards.
 */

/** The BullMQ queue name of one shard of a source's queue. */
export function shardQueueName(source: Source, shard: number): string {
  return shard === 0 ? QUEUE_NAMES[source] : `${QUEUE_NAMES[source]}.${shard}`;
}

/** The source and shard of a BullMQ queue name of a lead queue; null for any other queue. */
export function parseShardQueueName(name: string): { source: Source; shard: number } | null {
  const match = /^([a-z_]+)(?:\.([1-9][0-9]*))?$/.exec(name);
  const source = SOURCES.find((s) => QUEUE_NAMES[s] === match?.[1]);
  return source ? { source, shard: match?.[2] ? Number(match[2]) : 0 } : null;
}

/**
 * The shard of an account's jobs among `shards`: FNV-1a (32 bits) of its id, modulo the count. Stable across
 * processes, releases and Node versions, which is all it must be: every API and worker process puts and looks for
 * an account's jobs in the same shard while they share QUEUE_SHARDS.
 */
export function shardOfAccount(accountId: string, shards: number): number {
  if (shards <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < accountId.length; i++) {
    hash ^= accountId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

import { Queue } from 'bullmq';
import { SOURCES, type Source } from '@leadgen/domain';
import type { QueueCounts } from '@leadgen/ops';
import {
  closeRedis,
  ignoreConnectionErrors,
  producerConnection,
  redisKeys,
  waitUntilConnected,
  type RedisClient,
  type RedisSettings,
} from './redis-connections';
import type { RedisKeys } from './redis-keys';
import { probeQueue } from './queue-probe';
import { shardOfAccount, shardQueueName } from './queue-shards';

/**
 * Access to the queues (QUEUE_SHARDS BullMQ Queues per source, queue-shards.ts) from outside a consumer: what the
 * API adds jobs to and removes them from, what the operator board and the queue-depth metric read, where the
 * lost-job sweep looks. They share one connection that fails fast rather than queueing commands.
 */
export interface LeadQueues {
  /** the connection the queues share; it never queues a command while Redis is away */
  readonly connection: RedisClient;
  /** the key names of this deployment (redis-keys.ts) */
  readonly keys: RedisKeys;
  /** QUEUE_SHARDS: queues per source */
  readonly shards: number;
  /**
   * the queue of the source that an account's jobs go to (its shard). Without an account: the source's only queue,
   * which only one shard has (it throws with more; tests of one shard ask so)
   */
  queue(source: Source, accountId?: string): Queue;
  /** every shard of the source's queue, shard 0 first: what a lookup by job id alone, a count or a probe reads */
  shardsOf(source: Source): Queue[];
  /** every shard of every source's queue, for the operator board */
  queues(): Queue[];
  /**
   * each source's waiting, active and delayed entries summed over its shards (one Redis transaction per shard), under
   * the source's name, for the queue-depth metric
   */
  counts(): Promise<QueueCounts>;
  /** the entries of the source waiting for a worker, summed over its shards (one LLEN each) */
  waiting(source: Source): Promise<number>;
  /** a script on each shard's own keys: what an enqueue needs of Redis (routing, scripting, the keys' ACL) */
  probe(source: Source): Promise<void>;
  /** resolves once the connection is up, fails to come up, or after `ms` */
  waitUntilReady(ms: number): Promise<void>;
  close(): Promise<void>;
}

export function openLeadQueues(settings: RedisSettings, name = 'lead-queues'): LeadQueues {
  const connection = producerConnection(settings, name);
  const keys = redisKeys(settings);
  const shards = settings.queueShards;
  const bySource = new Map<Source, Queue[]>(
    SOURCES.map((source) => [
      source,
      Array.from({ length: shards }, (_, shard) => {
        const name = shardQueueName(source, shard);
        return ignoreConnectionErrors(new Queue(name, { connection, prefix: keys.queuePrefix(name) }));
      }),
    ]),
  );
  const all = () => [...bySource.values()].flat();
  return {
    connection,
    keys,
    shards,
    queue(source, accountId) {
      if (accountId === undefined && shards > 1) throw new Error(`the ${source} queue has ${shards} shards: name the account`);
      return bySource.get(source)![accountId === undefined ? 0 : shardOfAccount(accountId, shards)]!;
    },
    shardsOf: (source) => bySource.get(source)!,
    queues: all,
    async counts() {
      const counts: QueueCounts = {};
      for (const [source, queues] of bySource) {
        const sum = { waiting: 0, active: 0, delayed: 0 };
        for (const queue of queues) {
          const c = await queue.getJobCounts('waiting', 'active', 'delayed');
          sum.waiting += c.waiting ?? 0;
          sum.active += c.active ?? 0;
          sum.delayed += c.delayed ?? 0;
        }
        counts[source] = sum;
      }
      return counts;
    },
    async waiting(source) {
      const counts = await Promise.all(bySource.get(source)!.map((queue) => queue.getWaitingCount()));
      return counts.reduce((a, b) => a + b, 0);
    },
    probe: async (source) => {
      await Promise.all(bySource.get(source)!.map((queue) => probeQueue(connection, queue)));
    },
    waitUntilReady: (ms) => waitUntilConnected(connection, ms),
    async close() {
      // Queues share this connection; once it is gone they have nothing left to close.
      if (connection.status === 'ready') await Promise.all(all().map((q) => q.close()));
      await closeRedis(connection);
    },
  };
}

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
import { QUEUE_NAMES } from './queue-names';
import type { RedisKeys } from './redis-keys';
import { probeQueue } from './queue-probe';

/**
 * Access to the queues (one BullMQ Queue per source) from outside a consumer: what the API adds
 * jobs to and removes them from, what the operator board and the queue-depth metric read, where the
 * lost-job sweep looks. They share one connection that fails fast rather than queueing commands.
 */
export interface LeadQueues {
  /** the connection the queues share; it never queues a command while Redis is away */
  readonly connection: RedisClient;
  /** the key names of this deployment (redis-keys.ts) */
  readonly keys: RedisKeys;
  queue(source: Source): Queue;
  /** every source's queue, for the operator board */
  queues(): Queue[];
  /** each queue's waiting, active and delayed entries (one Redis transaction per queue), for the queue-depth metric */
  counts(): Promise<QueueCounts>;
  /** a script on the queue's own keys: what an enqueue needs of Redis (routing, scripting, the keys' ACL) */
  probe(source: Source): Promise<void>;
  /** resolves once the connection is up, fails to come up, or after `ms` */
  waitUntilReady(ms: number): Promise<void>;
  close(): Promise<void>;
}

export function openLeadQueues(settings: RedisSettings, name = 'lead-queues'): LeadQueues {
  const connection = producerConnection(settings, name);
  const keys = redisKeys(settings);
  const bySource = new Map<Source, Queue>(
    SOURCES.map((source) => [
      source,
      ignoreConnectionErrors(new Queue(QUEUE_NAMES[source], { connection, prefix: keys.queuePrefix(QUEUE_NAMES[source]) })),
    ]),
  );
  return {
    connection,
    keys,
    queue: (source) => bySource.get(source)!,
    queues: () => [...bySource.values()],
    async counts() {
      const counts: QueueCounts = {};
      for (const queue of bySource.values()) {
        const c = await queue.getJobCounts('waiting', 'active', 'delayed');
        counts[queue.name] = { waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0 };
      }
      return counts;
    },
    probe: (source) => probeQueue(connection, bySource.get(source)!),
    waitUntilReady: (ms) => waitUntilConnected(connection, ms),
    async close() {
      // Queues share this connection; once it is gone they have nothing left to close.
      if (connection.status === 'ready') await Promise.all([...bySource.values()].map((q) => q.close()));
      await closeRedis(connection);
    },
  };
}

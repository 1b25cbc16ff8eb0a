import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { SOURCES, type Source } from '@leadgen/domain';
import type { QueueCounts } from '@leadgen/ops';
import { closeRedis, ignoreConnectionErrors, producerConnection, waitUntilConnected } from './redis-connections';
import { QUEUE_NAMES } from './queue-names';

/**
 * Access to the queues (one BullMQ Queue per source) from outside a consumer: what the API adds
 * jobs to and removes them from, what the operator board and the queue-depth metric read, where the
 * lost-job sweep looks. They share one connection that fails fast rather than queueing commands.
 */
export interface LeadQueues {
  /** the connection the queues share; it never queues a command while Redis is away */
  readonly connection: Redis;
  readonly prefix: string;
  queue(source: Source): Queue;
  /** every source's queue, for the operator board */
  queues(): Queue[];
  /** each queue's waiting, active and delayed entries (one Redis transaction per queue), for the queue-depth metric */
  counts(): Promise<QueueCounts>;
  /** resolves once the connection is up, fails to come up, or after `ms` */
  waitUntilReady(ms: number): Promise<void>;
  close(): Promise<void>;
}

export function openLeadQueues(redisUrl: string, prefix: string): LeadQueues {
  const connection = producerConnection(redisUrl);
  const bySource = new Map<Source, Queue>(SOURCES.map((source) => [source, ignoreConnectionErrors(new Queue(QUEUE_NAMES[source], { connection, prefix }))]));
  return {
    connection,
    prefix,
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
    waitUntilReady: (ms) => waitUntilConnected(connection, ms),
    async close() {
      // Queues share this connection; once it is gone they have nothing left to close.
      if (connection.status === 'ready') await Promise.all([...bySource.values()].map((q) => q.close()));
      await closeRedis(connection);
    },
  };
}

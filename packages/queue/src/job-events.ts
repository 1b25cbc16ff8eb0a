import type { Redis } from 'ioredis';
import { closeRedis, subscriberConnection } from './redis-connections';
import { channels } from './queue-names';

export type JobEventHandler = (jobId: string) => void;

export interface JobEventPublisher {
  publishTerminal(jobId: string): Promise<void>;
  publishCancel(jobId: string): Promise<void>;
}

export function jobEventPublisher(connection: Redis, prefix: string): JobEventPublisher {
  const names = channels(prefix);
  return {
    publishTerminal: async (jobId) => void (await connection.publish(names.jobTerminal, jobId)),
    publishCancel: async (jobId) => void (await connection.publish(names.jobCancel, jobId)),
  };
}

export interface JobEventSubscription {
  close(): Promise<void>;
}

/**
 * One subscriber connection per process for the fleet's job events. Handlers are per process,
 * not per request: the API fans terminal events out to its waiting requests itself.
 */
export function subscribeJobEvents(
  redisUrl: string,
  prefix: string,
  handlers: { onTerminal?: JobEventHandler; onCancel?: JobEventHandler },
): JobEventSubscription {
  const names = channels(prefix);
  const connection: Redis = subscriberConnection(redisUrl);
  const wanted = [handlers.onTerminal ? names.jobTerminal : null, handlers.onCancel ? names.jobCancel : null].filter(
    (c): c is string => c !== null,
  );
  connection.on('message', (channel: string, jobId: string) => {
    if (channel === names.jobTerminal) handlers.onTerminal?.(jobId);
    else if (channel === names.jobCancel) handlers.onCancel?.(jobId);
  });
  // Not awaited: with Redis down the subscription waits for it (ioredis queues the command and
  // re-subscribes after every reconnect) while the process starts and serves what it can.
  if (wanted.length > 0) void connection.subscribe(...wanted).catch(() => undefined);
  return {
    async close() {
      await closeRedis(connection);
    },
  };
}

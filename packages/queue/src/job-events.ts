import type { Redis } from 'ioredis';
import { subscriberConnection } from './connection';
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
export async function subscribeJobEvents(
  redisUrl: string,
  prefix: string,
  handlers: { onTerminal?: JobEventHandler; onCancel?: JobEventHandler },
): Promise<JobEventSubscription> {
  const names = channels(prefix);
  const connection: Redis = subscriberConnection(redisUrl);
  connection.on('error', () => undefined);
  const wanted = [handlers.onTerminal ? names.jobTerminal : null, handlers.onCancel ? names.jobCancel : null].filter(
    (c): c is string => c !== null,
  );
  connection.on('message', (channel: string, jobId: string) => {
    if (channel === names.jobTerminal) handlers.onTerminal?.(jobId);
    else if (channel === names.jobCancel) handlers.onCancel?.(jobId);
  });
  // ioredis re-subscribes by itself after a reconnect.
  if (wanted.length > 0) await connection.subscribe(...wanted);
  return {
    async close() {
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}

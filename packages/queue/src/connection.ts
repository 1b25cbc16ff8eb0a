import type { ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';

/**
 * A connection for the side that answers clients: commands fail at once while Redis is down
 * (no offline queue), so a request gets a 503 instead of hanging.
 */
export function producerConnection(url: string): Redis {
  return new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
}

/** BullMQ workers and blocking subscribers need unlimited retries: they reconnect by themselves. */
export function workerConnectionOptions(url: string): ConnectionOptions {
  return { url, maxRetriesPerRequest: null };
}

export function subscriberConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

/** Closes a connection without hanging on a Redis that is not there: QUIT when connected, else drop it. */
export async function closeRedis(connection: Redis): Promise<void> {
  if (connection.status !== 'ready') {
    connection.disconnect();
    return;
  }
  await connection.quit().catch(() => connection.disconnect());
}

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

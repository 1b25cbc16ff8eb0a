import type { ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';

/**
 * For a connection whose failures surface elsewhere: each command that fails rejects to its caller
 * (a request answers 503, a sweep logs), and readiness reports Redis down. Without an `error`
 * listener ioredis (and a BullMQ Queue, which re-emits its connection's errors) would print every
 * failed reconnection attempt to stderr, or crash the process on an unhandled `error` event.
 */
export function ignoreConnectionErrors<E extends { on(event: 'error', listener: (error: Error) => void): unknown }>(emitter: E): E {
  emitter.on('error', () => undefined);
  return emitter;
}

/**
 * A connection for the side that answers clients: commands fail at once while Redis is down
 * (no offline queue), so a request gets a 503 instead of hanging.
 */
export function producerConnection(url: string): Redis {
  return ignoreConnectionErrors(new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false }));
}

/** BullMQ workers and blocking subscribers need unlimited retries: they reconnect by themselves. */
export function workerConnectionOptions(url: string): ConnectionOptions {
  return { url, maxRetriesPerRequest: null };
}

export function subscriberConnection(url: string): Redis {
  return ignoreConnectionErrors(new Redis(url, { maxRetriesPerRequest: null }));
}

/**
 * Resolves once the connection is up, fails to come up, or after `ms`: for a connection that fails
 * fast (it never queues a command), so that its first command is not refused only because Redis was
 * still connecting. A Redis that is down holds the caller no longer than one failed attempt.
 */
export async function waitUntilConnected(connection: Redis, ms: number): Promise<void> {
  // Closed for good: nothing to wait for.
  if (connection.status === 'ready' || connection.status === 'end') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      connection.off('ready', done);
      connection.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    connection.once('ready', done);
    connection.once('error', done);
  });
}

/** Closes a connection without hanging on a Redis that is not there: QUIT when connected, else drop it. */
export async function closeRedis(connection: Redis): Promise<void> {
  if (connection.status !== 'ready') {
    connection.disconnect();
    return;
  }
  await connection.quit().catch(() => connection.disconnect());
}

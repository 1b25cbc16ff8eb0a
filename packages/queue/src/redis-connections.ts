import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { connectionLog } from './connection-log';
import { RedisKeys } from './redis-keys';

/** A connection to one node (directly or through Sentinel) or to a cluster: what every caller holds. */
export type RedisClient = Redis | Cluster;

export interface HostPort {
  host: string;
  port: number;
}

/** Where Redis is and how to reach it: config.redis (packages/config's variables.ts) has this shape. */
export interface RedisSettings {
  url: string;
  clusterNodes: HostPort[] | null;
  sentinels: HostPort[] | null;
  sentinelName: string;
  sentinelPassword: string | null;
  username: string | null;
  password: string | null;
  tls: boolean;
  tlsCa: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
  tlsServername: string | null;
  queuePrefix: string;
  /** QUEUE_SHARDS: BullMQ queues per source (queue-shards.ts) */
  queueShards: number;
}

export type RedisTopology = 'single' | 'cluster' | 'sentinel';

export function topologyOf(settings: RedisSettings): RedisTopology {
  return settings.clusterNodes ? 'cluster' : settings.sentinels ? 'sentinel' : 'single';
}

/** The key names of these settings' topology (redis-keys.ts). */
export function redisKeys(settings: RedisSettings): RedisKeys {
  return new RedisKeys(settings.queuePrefix, topologyOf(settings) === 'cluster');
}

/**
 * What a connection is for:
 * - `producer`: answers clients, so commands fail at once while Redis is away (no offline queue)
 *   and a request gets a 503 instead of hanging;
 * - `blocking`: BullMQ workers and pub/sub subscribers; unlimited retries (BullMQ requires
 *   maxRetriesPerRequest: null), they reconnect and resubscribe by themselves;
 * - `lazy`: a few retries, connected at its first command (the providers' rate limits).
 */
export type ConnectionRole = 'producer' | 'blocking' | 'lazy';

const ROLE_OPTIONS: Record<ConnectionRole, RedisOptions> = {
  producer: { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 },
  blocking: { maxRetriesPerRequest: null },
  lazy: { maxRetriesPerRequest: 2, lazyConnect: true },
};

// Reconnects wait 100 ms, 200 ms, ... up to 5 s: a Redis that is gone costs a few attempts a
// minute, not thousands (ioredis' own default retries every 2 s at most, and a Sentinel without its
// primary every 10 ms).
export const RECONNECT_MAX_MS = 5_000;
export function reconnectDelay(attempt: number): number {
  return Math.min(RECONNECT_MAX_MS, 100 * 2 ** Math.min(Math.max(attempt - 1, 0), 10));
}

function tlsOptions(settings: RedisSettings): TlsOptions | undefined {
  const on = settings.tls || (topologyOf(settings) === 'single' && /^rediss:/i.test(settings.url));
  if (!on) return undefined;
  const file = (path: string | null) => (path === null ? undefined : readFileSync(path));
  return {
    ca: file(settings.tlsCa),
    cert: file(settings.tlsCert),
    key: file(settings.tlsKey),
    ...(settings.tlsServername ? { servername: settings.tlsServername } : {}),
  };
}

function credentials(settings: RedisSettings): RedisOptions {
  return {
    ...(settings.username !== null ? { username: settings.username } : {}),
    ...(settings.password !== null ? { password: settings.password } : {}),
  };
}

/**
 * The one place a Redis connection is made, for every topology and role. `name` says which
 * connection a log line is about; its failures are logged once per change of state and then at
 * most once per interval (connection-log.ts).
 */
export function redisConnection(settings: RedisSettings, role: ConnectionRole, name: string): RedisClient {
  const tls = tlsOptions(settings);
  const base: RedisOptions = { ...ROLE_OPTIONS[role], ...credentials(settings), ...(tls ? { tls } : {}) };
  let client: RedisClient;
  if (settings.clusterNodes) {
    const options: ClusterOptions = {
      // The cluster reconnects its nodes itself (clusterRetryStrategy).
      redisOptions: base,
      clusterRetryStrategy: reconnectDelay,
      enableOfflineQueue: role !== 'producer',
      lazyConnect: role === 'lazy',
      // Addresses the cluster announces are dialled as they are (a TLS name comes from REDIS_TLS_SERVERNAME).
      dnsLookup: (address, callback) => callback(null, address),
      slotsRefreshTimeout: 2_000,
    };
    client = new Cluster(settings.clusterNodes, options);
  } else if (settings.sentinels) {
    client = new Redis({
      ...base,
      retryStrategy: reconnectDelay,
      sentinels: settings.sentinels,
      name: settings.sentinelName,
      ...(settings.sentinelPassword !== null ? { sentinelPassword: settings.sentinelPassword } : {}),
      ...(tls ? { enableTLSForSentinelMode: true, sentinelTLS: tls } : {}),
      sentinelRetryStrategy: reconnectDelay,
    });
  } else {
    client = new Redis(settings.url, { ...base, retryStrategy: reconnectDelay });
  }
  return watchConnection(client, name);
}

/** Logs a connection's failures (bounded) and keeps an unhandled `error` event from crashing the process. */
export function watchConnection<C extends RedisClient>(client: C, name: string): C {
  const log = connectionLog(name);
  client.on('error', log.failed);
  client.on('ready', log.recovered);
  return client;
}

/**
 * For an emitter that re-emits a connection's errors (a BullMQ Queue over a connection made here):
 * the connection logs them already; without a listener an `error` event would crash the process.
 */
export function ignoreConnectionErrors<E extends { on(event: 'error', listener: (error: Error) => void): unknown }>(emitter: E): E {
  emitter.on('error', () => undefined);
  return emitter;
}

/** A fail-fast connection (see ConnectionRole). */
export function producerConnection(settings: RedisSettings, name = 'producer'): RedisClient {
  return redisConnection(settings, 'producer', name);
}

export function subscriberConnection(settings: RedisSettings, name = 'subscriber'): RedisClient {
  return redisConnection(settings, 'blocking', name);
}

/**
 * Resolves once the connection is up, fails to come up, or after `ms`: for a connection that fails
 * fast (it never queues a command), so that its first command is not refused only because Redis was
 * still connecting. A Redis that is down holds the caller no longer than one failed attempt.
 */
export async function waitUntilConnected(connection: RedisClient, ms: number): Promise<void> {
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
export async function closeRedis(connection: RedisClient): Promise<void> {
  if (connection.status !== 'ready') {
    connection.disconnect();
    return;
  }
  await connection.quit().catch(() => connection.disconnect());
}

import type { Server } from 'node:http';
import type { Config } from '@leadgen/config';
import type { Database } from '@leadgen/db';
import {
  closeRedis,
  type JobEventSubscription,
  type RedisClient,
  type JobProducer,
  type MonitorAlarms,
  type WebhookProducer,
} from '@leadgen/queue';
import type { JobWaiters } from './job-waiters';

export interface ApiShutdownParts {
  server: Server;
  waiters: JobWaiters;
  purge: { stop(): void };
  subscription: JobEventSubscription;
  producer: JobProducer;
  webhooks: WebhookProducer;
  alarms: MonitorAlarms;
  redis: RedisClient;
  db: Database;
}

/**
 * The order the API stops in (SIGTERM), once /readyz answers 503: the server stops accepting and
 * idle keep-alive sockets close; waiting requests answer now with their job's current state (a
 * 202) instead of holding shutdown; after SHUTDOWN_GRACE_MS the connections still open are cut;
 * then the subscription, the queues, Redis and PostgreSQL close.
 */
export async function shutDownApi(config: Config, parts: ApiShutdownParts): Promise<void> {
  const { server } = parts;
  parts.purge.stop();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  parts.waiters.wakeAll();
  const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
  await closed;
  clearTimeout(grace);
  await parts.subscription.close();
  await parts.producer.close();
  await parts.webhooks.close();
  await parts.alarms.close();
  await closeRedis(parts.redis);
  await parts.db.$disconnect();
}

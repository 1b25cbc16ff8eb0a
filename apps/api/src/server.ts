import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '@leadgen/config';
import { createDatabase, purgeExpiredIdempotencyKeys } from '@leadgen/db';
import { logger } from '@leadgen/logger';
import { metrics, reportQueueDepth, type ReadinessReport } from '@leadgen/ops';
import { closeRedis, createJobProducer, createWebhookProducer, subscribeJobEvents } from '@leadgen/queue';
import { Redis } from 'ioredis';
import { createApp } from './app';
import { answerClientError } from './http/client-error';
import type { ApiDependencies } from './dependencies';
import { JobWaiters } from './job-waiters';
import { TerminalBodies } from './terminal-bodies';
import { BOARD_PATH, operatorBoard } from './operator-board';
import { apiReadiness } from './readiness';

export interface RunningApi {
  server: Server;
  port: number;
  deps: ApiDependencies;
  /** what /readyz answers, for the operations port too */
  readiness: () => Promise<ReadinessReport>;
  /** stop accepting, drain in-flight requests, close connections */
  close(): Promise<void>;
}

/** Builds the API's dependencies, subscribes to job events and listens. Used by main.ts and by tests. */
export async function startApi(config: Config): Promise<RunningApi> {
  const db = createDatabase(config.database.url, { poolSize: config.database.poolSize });
  const producer = createJobProducer(config.redis.url, config.redis.queuePrefix);
  const redis = new Redis(config.redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  const waiters = new JobWaiters();
  // Webhooks (decision 016): the API enqueues the deliveries of cancels, pings and manual retries.
  const webhooks = createWebhookProducer(config.redis.url, config.redis.queuePrefix);
  const deps: ApiDependencies = { config, db, producer, redis, waiters, terminalBodies: new TerminalBodies(), webhooks };

  // While Redis is away the subscription is too; requests then wait out their time and read PostgreSQL.
  const subscription = subscribeJobEvents(config.redis.url, config.redis.queuePrefix, {
    onTerminal: (jobId) => waiters.notify(jobId),
  });

  let shuttingDown = false;
  const extraRouters = config.operatorPassword
    ? [{ path: BOARD_PATH, handler: operatorBoard([...producer.queues(), webhooks.queue()], config.operatorPassword, {
          redis,
          prefix: config.redis.queuePrefix,
          writable: config.operatorBoardWritable,
        }) }]
    : [];
  const app = createApp(deps, {
    isShuttingDown: () => shuttingDown,
    extraRouters,
    requestObservers: [(req, status, seconds, route) => metrics.httpRequestDuration.observe({ route, method: req.method, status: String(status) }, seconds)],
  });
  // One read of each queue's counts (one Redis transaction each) per 10 s at most, only while scraped.
  reportQueueDepth(async () => {
    const counts: Awaited<ReturnType<Parameters<typeof reportQueueDepth>[0]>> = {};
    for (const queue of [...producer.queues(), webhooks.queue()]) {
      const c = await queue.getJobCounts('waiting', 'active', 'delayed');
      counts[queue.name] = { waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0 };
    }
    return counts;
  });
  // requireHostHeader off: Node would refuse a missing Host with a bare 400; http/protocol-checks.ts answers it.
  // The enqueue refuses while its connection is not up (503, never a hang): a process that listened
  // before Redis answered would refuse its first jobs. A Redis that is down does not hold start-up.
  await producer.waitUntilReady(5_000);
  const server = createServer({ requireHostHeader: false }, app).listen(config.http.port);
  // Malformed HTTP never reaches Express: answer it as Problem Details where the socket allows.
  server.on('clientError', answerClientError);
  // An Expect Node cannot meet goes to the app too, instead of Node's bare 417.
  server.on('checkExpectation', app);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // Longer than a load balancer's idle timeout, so it never reuses a socket we are closing.
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  // Expired keys are ignored on read anyway; this only keeps the table small.
  const housekeeping = setInterval(() => {
    purgeExpiredIdempotencyKeys(db).catch((error: Error) => logger.warn('idempotency purge failed', { error: error.message }));
  }, 3600_000);
  housekeeping.unref();

  return {
    server,
    port,
    deps,
    readiness: apiReadiness(deps, () => shuttingDown),
    async close() {
      shuttingDown = true;
      clearInterval(housekeeping);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Waiting requests answer now with their job's current state (a 202), instead of holding shutdown.
      waiters.wakeAll();
      const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
      await closed;
      clearTimeout(grace);
      await subscription.close();
      await producer.close();
      await webhooks.close();
      await closeRedis(redis);
      await db.$disconnect();
    },
  };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suppressionUploads } from './routes/suppressions/suppression-upload-parser';
import { createLifecycle } from '@leadgen/commands';
import type { Config } from '@leadgen/config';
import {
  countBatchesByStatus,
  countObjectionsByStatus,
  createDatabase,
  DEVELOPMENT_SECRETS_KEY_WARNING,
  findCreditDiscrepancies,
  heldJobsBySource,
  listObjections,
  readErasureEpoch,
} from '@leadgen/db';
import { SOURCES } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { metrics, reportBatchCounts, reportLedgerDrift, reportQueueDepth, reportReadReplica, type ReadinessReport } from '@leadgen/ops';
import { createJobProducer, createMonitorAlarms, createWebhookProducer, producerConnection, subscribeJobEvents } from '@leadgen/queue';
import { createAreaSurveyor } from '@leadgen/providers';
import { shutDownApi } from './api-shutdown';
import { createApp } from './app';
import { answerClientError } from './http/client-error';
import type { ApiDependencies } from './dependencies';
import { startIdempotencyKeyPurge } from './idempotency-key-purge';
import { JobWaiters } from './job-waiters';
import { TerminalBodies } from './terminal-bodies';
import { BOARD_PATH, operatorBoard } from './operator-board';
import { OBJECTIONS_PAGE_ROWS } from './operator-objections';
import { apiReadiness } from './readiness';
import { createObjectionMailer } from './objection-mailer';
import { createDomainControlCheck } from './use-cases/domain-control-check';

export interface RunningApi {
  server: Server;
  port: number;
  deps: ApiDependencies;
  /** what /readyz answers, for the operations port too */
  readiness: () => Promise<ReadinessReport>;
  /** stop accepting, drain in-flight requests, close connections (api-shutdown.ts) */
  close(): Promise<void>;
}

/** The API's composition root: builds its dependencies, subscribes to job events and listens. Used by main.ts and by tests. */
export async function startApi(config: Config): Promise<RunningApi> {
  const db = createDatabase(config.database.url, {
    poolSize: config.database.poolSize,
    secretKeys: config.secrets.encryptionKeys,
    // A multi-host DATABASE_URL (decision 045): which server takes the writes, said once and again after each failover.
    onHostChosen: (host, selections) =>
      logger[selections > 1 ? 'warn' : 'info'](`PostgreSQL: connecting to ${host}${selections > 1 ? ' after a failover' : ''}`, {
        host,
        selections,
      }),
    // DATABASE_READ_URL (decision 047): listings, exports and the board read the replica while its lag is within bound.
    readUrl: config.database.readUrl,
    readMaxLagMs: config.database.readMaxLagMs,
    onReadVerdict: (verdict) =>
      verdict.useReplica
        ? logger.info('PostgreSQL reads: the replica serves listings and exports', { lagMs: verdict.lagMs })
        : logger.warn(`PostgreSQL reads: the primary serves listings and exports (${verdict.reason})`, { lagMs: verdict.lagMs }),
  });
  // Production refuses to start without a key (config); elsewhere the published development key is used, and said so.
  if (!config.secrets.encryptionKeys) logger.warn(DEVELOPMENT_SECRETS_KEY_WARNING);
  const producer = createJobProducer(config.redis);
  const redis = producerConnection(config.redis, 'api');
  const waiters = new JobWaiters();
  // Webhooks (decision 016): the API enqueues the deliveries of cancels, pings and manual retries.
  const webhooks = createWebhookProducer(config.redis);
  const terminalBodies = new TerminalBodies(() => readErasureEpoch(db));
  const alarms = createMonitorAlarms(config.redis);
  const lifecycle = createLifecycle({ db, config, queue: producer, events: producer, webhooks });
  const objections = { mailer: createObjectionMailer(config), domainCheck: createDomainControlCheck(config) };
  if (!objections.mailer)
    logger.warn('email objections send no confirmation link: set MAIL_URL and PUBLIC_BASE_URL (docs/data-protection.md)');
  // Area searches (decision 039): a place's viewport and a quote's listings, under the fleet's google_places bucket.
  const { surveyor } = createAreaSurveyor(config, { redis }); // on the API's own connection: nothing of its own to close
  const deps: ApiDependencies = { config, db, producer, redis, waiters, terminalBodies, webhooks, alarms, lifecycle, objections, surveyor };

  // While Redis is away the subscription is too; requests then wait out their time and read PostgreSQL.
  const subscription = subscribeJobEvents(config.redis, {
    onTerminal: (jobId) => waiters.notify(jobId),
    // A kept body would still show erased leads (decision 019).
    onLeadsErased: (jobId) => terminalBodies.forget(jobId),
  });

  let shuttingDown = false;
  const extraRouters = config.operatorPassword
    ? [
        {
          path: BOARD_PATH,
          handler: operatorBoard([...producer.queues(), webhooks.queue(), alarms.queue()], config.operatorPassword, {
            redis,
            keys: producer.keys,
            writable: config.operatorBoardWritable,
            objections: {
              list: (status) => listObjections(db.reads, { status, limit: OBJECTIONS_PAGE_ROWS }),
              counts: () => countObjectionsByStatus(db.reads),
            },
          }),
        },
      ]
    : [];
  const app = createApp(deps, {
    isShuttingDown: () => shuttingDown,
    extraRouters,
    requestObservers: [
      (req, status, seconds, route) => metrics.httpRequestDuration.observe({ route, method: req.method, status: String(status) }, seconds),
    ],
  });
  // Read only while scraped, at most once per 10 s; the webhooks queue beside the sources'.
  reportQueueDepth(async () => {
    const [queues, held] = await Promise.all([producer.counts(), heldJobsBySource(db)]);
    // A source queue's jobs held past their accounts' shares wait in PostgreSQL, not in its wait list (decision 020).
    for (const source of SOURCES) if (queues[source]) queues[source] = { ...queues[source], held: held[source] ?? 0 };
    return { ...queues, ...(await webhooks.counts()) };
  });
  reportBatchCounts(() => countBatchesByStatus(db));
  reportLedgerDrift(async () => (await findCreditDiscrepancies(db)).length);
  // The replica's measured lag and whether reads are on it (decision 047), measured at scrape time when a second old.
  if (db.replica) reportReadReplica(db.replica);
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
  const purge = startIdempotencyKeyPurge(db, { auditRetentionDays: config.audit.retentionDays });

  return {
    server,
    port,
    deps,
    readiness: apiReadiness(deps, () => shuttingDown),
    async close() {
      shuttingDown = true;
      await shutDownApi(config, { server, waiters, purge, subscription, producer, webhooks, alarms, redis, db });
      // After the requests have drained: none waits for the upload thread any more (started again if needed).
      await suppressionUploads.stop();
    },
  };
}

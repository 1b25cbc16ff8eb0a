import type { Config } from '@leadgen/config';
import { createDatabase } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { logger, withLogContext } from '@leadgen/logger';
import { metrics, type ReadinessReport } from '@leadgen/ops';
import { closeProviders, createProviders, type LeadProvider } from '@leadgen/providers';
import {
  closeRedis,
  createJobProducer,
  createLeadConsumer,
  JobFailedError,
  jobEventPublisher,
  producerConnection,
  QUEUE_NAMES,
  subscribeJobEvents,
  type Worker,
} from '@leadgen/queue';
import { createLeadJobHandler, type HandlerDependencies } from './process-lead-job';
import { startLostJobSweep } from './requeue-lost-jobs';
import { workerReadiness } from './worker-readiness';
import { startWebhookDelivery } from './webhooks/webhook-runtime';

export interface RunningWorker {
  sources: Source[];
  /** what the operations port's /readyz answers */
  readiness: () => Promise<ReadinessReport>;
  /** stop taking jobs; finish or hand back the ones held; close connections */
  close(): Promise<void>;
}

/**
 * Starts one BullMQ consumer per source in WORKER_SOURCES, each with its provider. Refuses to
 * start when a source has no provider, as a job with no handler would only sit in its queue.
 */
export async function startWorker(config: Config): Promise<RunningWorker> {
  const sources = config.worker.sources;
  const providers = createProviders(config, sources, { redisUrl: config.redis.url });
  const missing = sources.filter((s) => !providers.has(s));
  if (missing.length > 0) throw new Error(`no provider for source(s): ${missing.join(', ')}`);

  // Bounded whatever the concurrency: a job borrows a connection for a statement, never while it waits on an upstream.
  const db = createDatabase(config.database.url, { poolSize: config.database.poolSize });
  const publisherConnection = producerConnection(config.redis.url);
  publisherConnection.on('error', () => undefined);
  // Webhooks (decision 016): every worker enqueues its settlements' deliveries; one serving `webhooks` delivers them.
  const webhooks = await startWebhookDelivery(config, db);
  const deps: HandlerDependencies = {
    config,
    db,
    events: jobEventPublisher(publisherConnection, config.redis.queuePrefix),
    webhooks: webhooks.producer,
  };

  const consumers: Worker[] = sources.map((source) => {
    const provider = providers.get(source) as LeadProvider<typeof source>;
    const consumer = createLeadConsumer(source, createLeadJobHandler(provider, deps), {
      redisUrl: config.redis.url,
      prefix: config.redis.queuePrefix,
      concurrency: config.worker.concurrency,
      lockMs: config.worker.lockMs,
      stalledCheckMs: config.worker.stalledCheckMs,
    });
    consumer.on('error', (error) => logger.warn('worker connection error', { source, error: error.message }));
    // Only a report: a job's last attempt settles the job itself (process-lead-job.ts), and one whose
    // attempts ended without a settlement (PostgreSQL away) is found again by the lost-job sweep.
    consumer.on('failed', (job, error) => {
      // A FAILED job's entry: settled and logged as 'job finished' already.
      if (!job || error instanceof JobFailedError) return;
      withLogContext({ jobId: job.data.jobId, source }, () => {
        logger.warn('job attempt failed', { attempt: job.attemptsMade, attempts: job.opts.attempts ?? 1, error: error.message });
      });
    });
    return consumer;
  });

  // A cancel reaches whichever process holds the job; BullMQ's cancelJob only sees its own jobs.
  const subscription = subscribeJobEvents(config.redis.url, config.redis.queuePrefix, {
    onCancel: (jobId) => {
      for (const consumer of consumers) consumer.cancelJob(jobId, 'cancelled');
    },
  });

  // One worker in the fleet per source and period looks for jobs the queue lost (requeue-lost-jobs.ts).
  const producer = createJobProducer(config.redis.url, config.redis.queuePrefix);

  for (const consumer of consumers) void consumer.run();
  await Promise.all(consumers.map((c) => c.waitUntilReady()));
  // Its connection fails fast rather than queueing commands: the first sweep waits for it.
  await producer.waitUntilReady(5_000);
  const sweep = startLostJobSweep(db, producer, sources, { stillForMs: config.worker.lostJobAfterMs, periodMs: config.worker.lostJobSweepMs });
  // What "no worker consuming a queue" is alerted on: the sum over the fleet per queue.
  for (const source of sources) metrics.queueConsumers.set({ queue: QUEUE_NAMES[source] }, config.worker.concurrency);
  logger.info('worker started', {
    sources,
    concurrency: config.worker.concurrency,
    providers: sources.map((s) => providers.get(s)?.name),
    webhooks: config.webhooks.deliver ? config.webhooks.concurrency : 0,
  });

  let draining = false;
  return {
    sources,
    readiness: workerReadiness({ db, redis: publisherConnection, consumers: [...consumers, ...(webhooks.consumer ? [webhooks.consumer] : [])], isDraining: () => draining }),
    async close() {
      draining = true;
      for (const source of sources) metrics.queueConsumers.set({ queue: QUEUE_NAMES[source] }, 0);
      // Jobs get the grace period to finish; then they are interrupted and handed back to the queue.
      const grace = setTimeout(() => {
        for (const consumer of consumers) consumer.cancelAllJobs('shutdown');
      }, config.shutdownGraceMs);
      await sweep.stop();
      await Promise.all([...consumers.map((c) => c.close()), webhooks.close()]);
      clearTimeout(grace);
      await producer.close();
      await subscription.close();
      await closeRedis(publisherConnection);
      await closeProviders(providers);
      await db.$disconnect();
    },
  };
}

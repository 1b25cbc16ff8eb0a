import type { Config } from '@leadgen/config';
import type { Database } from '@leadgen/db';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import {
  closeRedis,
  connectionLog,
  producerConnection,
  redisKeys,
  createWebhookConsumer,
  createWebhookProducer,
  WEBHOOK_QUEUE_NAME,
  WebhookDeliveryFailed,
  WebhookRetryLater,
  type WebhookProducer,
  type Worker,
} from '@leadgen/queue';
import { createWebhookDeliveryHandler } from './deliver-webhook';
import { targetGate } from './target-gate';
import { startOutboxSweep } from './webhook-outbox-sweep';

export interface WebhookDelivery {
  /** every worker enqueues the deliveries of the jobs it settles, whether it delivers webhooks or not */
  producer: WebhookProducer;
  /** the webhook queue's consumer, when WORKER_QUEUES lists `webhooks` */
  consumer: Worker | null;
  close(): Promise<void>;
}

/**
 * The webhook side of a worker (decision 016): its own BullMQ Worker with WEBHOOK_CONCURRENCY slots,
 * so a slow receiver never holds a lead job's slot, and the fleet-wide outbox sweep.
 */
export async function startWebhookDelivery(config: Config, db: Database): Promise<WebhookDelivery> {
  const producer = createWebhookProducer(config.redis);
  if (!config.webhooks.deliver) {
    return { producer, consumer: null, close: () => producer.close() };
  }
  // The targets' places and timeout streaks, shared by the fleet (target-gate.ts).
  const gateConnection = producerConnection(config.redis, 'webhook-targets');
  const gate = targetGate(gateConnection, redisKeys(config.redis), {
    perTarget: config.webhooks.concurrencyPerEndpoint,
    perAccount: config.webhooks.concurrencyPerAccount,
    timeoutMs: config.webhooks.timeoutMs,
  });
  const consumer = createWebhookConsumer(createWebhookDeliveryHandler(config, db, { gate, wake: (ids) => producer.wake(ids) }), {
    redis: config.redis,
    concurrency: config.webhooks.concurrency,
    // Renewed while the worker lives: a dead worker's attempt is made again by another after WORKER_LOCK_MS.
    lockMs: config.worker.lockMs,
    stalledCheckMs: config.worker.stalledCheckMs,
  });
  // BullMQ re-emits its connections' errors here: bounded like every connection's (connection-log.ts).
  consumer.on('error', connectionLog('consumer:webhooks').failed);
  consumer.on('failed', (job, error) => {
    // Outcomes of attempts are logged by the handler; anything else is an infrastructure fault, retried.
    if (!job || error instanceof WebhookRetryLater || error instanceof WebhookDeliveryFailed) return;
    logger.warn('webhook attempt broke', { deliveryId: job.data.deliveryId, error: error.message });
  });
  void consumer.run();
  await consumer.waitUntilReady();
  metrics.queueConsumers.set({ queue: WEBHOOK_QUEUE_NAME }, config.webhooks.concurrency);
  const sweep = startOutboxSweep(db, producer, { lostAfterMs: config.webhooks.lostAfterMs, periodMs: config.webhooks.sweepMs });
  return {
    producer,
    consumer,
    async close() {
      metrics.queueConsumers.set({ queue: WEBHOOK_QUEUE_NAME }, 0);
      await sweep.stop();
      // An attempt under way finishes (it is bounded by WEBHOOK_TIMEOUT_MS); one that does not is made again after the lock lapses.
      const grace = setTimeout(() => consumer.cancelAllJobs('shutdown'), config.shutdownGraceMs);
      await consumer.close();
      clearTimeout(grace);
      await producer.close();
      await closeRedis(gateConnection);
    },
  };
}

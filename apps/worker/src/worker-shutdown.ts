import type { Config } from '@leadgen/config';
import type { Database } from '@leadgen/db';
import { closeProviders, type LoadedProviders } from '@leadgen/providers';
import { closeRedis, type JobEventSubscription, type RedisClient, type LeadQueues } from '@leadgen/queue';
import type { LeadConsumers } from './lead-consumers';
import type { PeriodicSweep } from './periodic-sweep';
import type { MonitorRuntime } from './monitors/monitor-runtime';
import type { WebhookDelivery } from './webhooks/webhook-runtime';

export interface WorkerShutdownParts {
  consumers: LeadConsumers;
  /** the webhook queue's consumer and producer, and the outbox sweep (decision 016) */
  webhooks: WebhookDelivery;
  /** the monitors' alarm consumer and sweep (decision 022) */
  monitors: MonitorRuntime;
  sweep: PeriodicSweep;
  queues: LeadQueues;
  subscription: JobEventSubscription;
  publisherConnection: RedisClient;
  providers: LoadedProviders;
  db: Database;
}

/**
 * The order a worker stops in (SIGTERM): no more jobs taken; the jobs held get SHUTDOWN_GRACE_MS
 * to finish, then they are interrupted and handed back to their queue (the next worker resumes
 * from the committed cursor); then the connections close.
 */
export async function shutDownWorker(config: Config, parts: WorkerShutdownParts): Promise<void> {
  const grace = setTimeout(() => parts.consumers.interruptAll(), config.shutdownGraceMs);
  await parts.sweep.stop();
  // Webhook attempts under way finish too (each within WEBHOOK_TIMEOUT_MS), on their own grace timer.
  await Promise.all([parts.consumers.close(), parts.webhooks.close(), parts.monitors.close()]);
  clearTimeout(grace);
  await parts.queues.close();
  await parts.subscription.close();
  await closeRedis(parts.publisherConnection);
  await closeProviders(parts.providers);
  await parts.db.$disconnect();
}

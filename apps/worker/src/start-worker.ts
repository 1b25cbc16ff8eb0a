import type { Config } from '@leadgen/config';
import { createLifecycle } from '@leadgen/commands';
import { createDatabase, DEVELOPMENT_SECRETS_KEY_WARNING } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { ReadinessReport } from '@leadgen/ops';
import { closeProviders, createProviders, createTestProviders } from '@leadgen/providers';
import { enqueueReleasedJobs, jobEventPublisher, openLeadQueues, producerConnection, redisKeys, subscribeJobEvents } from '@leadgen/queue';
import { accountTurns } from './account-turns';
import { startIdleSlotFiller } from './borrow-idle-slots';
import { createLeadConsumers } from './lead-consumers';
import { startLeadRetentionSweep } from './lead-retention-sweep';
import { startWebhookRetentionSweep } from './webhook-retention-sweep';
import { startTestCreditsSweep } from './test-credits-sweep';
import { startLostJobSweep } from './lost-job-sweep';
import { startMonitorRuntime } from './monitors/monitor-runtime';
import { startObjectionSweep } from './objections/objection-sweep';
import type { HandlerDependencies } from './process-lead-job';
import { startWebhookDelivery } from './webhooks/webhook-runtime';
import { workerReadiness } from './worker-readiness';
import { shutDownWorker } from './worker-shutdown';

/** How often a worker looks at its idle slots while no job of theirs ends (decision 020, borrowed slots). */
const IDLE_SLOT_PERIOD_MS = 1_000;

export interface RunningWorker {
  sources: Source[];
  /** what the operations port's /readyz answers */
  readiness: () => Promise<ReadinessReport>;
  /** an account's lead jobs running and waiting for a turn in this process (decision 050) */
  turns: (accountId: string) => { running: number; waiting: number };
  /** stop taking jobs; finish or hand back the ones held; close connections */
  close(): Promise<void>;
}

/**
 * The worker's composition root: one BullMQ consumer per source in WORKER_QUEUES, each with its
 * provider (only those sources' providers are built), the cancel subscription and the lost-job
 * sweep. Refuses to start when a source has no provider, as a job with no handler would only sit
 * in its queue.
 */
export async function startWorker(config: Config): Promise<RunningWorker> {
  const sources = config.worker.sources;
  const providers = createProviders(config, sources);
  const missing = sources.filter((source) => !providers[source]);
  if (missing.length > 0) {
    await closeProviders(providers);
    throw new Error(
      `WORKER_QUEUES names ${missing.join(', ')}, which no provider serves: the worker would leave those jobs in their queues`,
    );
  }

  // Bounded whatever the concurrency: a job borrows a connection for a statement, never while it waits on an upstream.
  // Only a worker that delivers webhooks opens their secrets: the others hold no key (Kubernetes gives them
  // none), and their box refuses to seal or open. A production deliverer refuses to start without a key
  // (config); elsewhere the published development key is used, and said so.
  const db = createDatabase(config.database.url, {
    poolSize: config.database.poolSize,
    secretKeys: config.webhooks.deliver ? config.secrets.encryptionKeys : 'locked',
    // A multi-host DATABASE_URL (decision 045): which server takes the writes, said once and again after each failover.
    onHostChosen: (host, selections) =>
      logger[selections > 1 ? 'warn' : 'info'](`PostgreSQL: connecting to ${host}${selections > 1 ? ' after a failover' : ''}`, {
        host,
        selections,
      }),
  });
  if (config.webhooks.deliver && !config.secrets.encryptionKeys) logger.warn(DEVELOPMENT_SECRETS_KEY_WARNING);
  const publisherConnection = producerConnection(config.redis, 'job-events-publisher');
  // Webhooks (decision 016): every worker enqueues its settlements' deliveries; one serving `webhooks` delivers them.
  const webhooks = await startWebhookDelivery(config, db);
  // The lead queues from outside a consumer: the lost-job sweep, and the jobs a settlement releases (decision 020).
  const queues = openLeadQueues(config.redis, 'lost-job-sweep');
  const events = jobEventPublisher(publisherConnection, redisKeys(config.redis));
  // A job's life (@leadgen/commands): settlements, releases, borrows and monitor runs, each told through one step.
  const lifecycle = createLifecycle({
    db,
    config,
    queue: { enqueueReleased: (source, accountId, jobIds) => enqueueReleasedJobs(queues, source, accountId, jobIds) },
    events,
    webhooks: webhooks.producer,
  });
  // Fair turns between accounts for this process's loop (decision 050).
  const turns = accountTurns({ perAccount: config.worker.turnsPerAccount, maxBusy: config.worker.borrowMaxBusy });
  const deps: HandlerDependencies = { config, db, lifecycle, turns };
  // Borrowed slots (decision 020): this process's slots beyond WORKER_RESERVED_SLOTS that nothing waits for take held jobs.
  const slots = startIdleSlotFiller(
    { lifecycle, waiting: (source) => queues.waiting(source), turnsWaiting: () => turns.waiting() },
    sources,
    {
      concurrency: config.worker.concurrency,
      reserved: config.worker.reservedSlots,
      periodMs: IDLE_SLOT_PERIOD_MS,
      maxBusy: config.worker.borrowMaxBusy,
    },
  );
  const consumers = createLeadConsumers(
    sources.flatMap((source) => providers[source] ?? []),
    deps,
    slots,
    // Test accounts' jobs (decision 036) are the sandbox's, whatever upstream keys this process has.
    createTestProviders(config, sources),
  );

  // A cancel reaches whichever process holds the job; BullMQ's cancelJob only sees its own jobs.
  // A job created held is a nudge for this process's idle slots (borrowed slots, decision 020).
  const subscription = subscribeJobEvents(config.redis, {
    onCancel: (jobId) => consumers.cancel(jobId),
    onHeld: (source) => void slots.nudge(source),
  });

  await consumers.start();
  // Its connection fails fast rather than queueing commands: the first sweep waits for it.
  await queues.waitUntilReady(5_000);
  // One worker in the fleet per source and period looks for jobs the queue lost, and held jobs that fit (lost-job-sweep.ts).
  const lostJobs = startLostJobSweep(db, queues, sources, {
    stillForMs: config.worker.lostJobAfterMs,
    periodMs: config.worker.lostJobSweepMs,
    lifecycle,
  });
  // Monitors (decision 022): every worker ticks them; their runs go to the sources' queues like any job.
  const monitors = await startMonitorRuntime(config, lifecycle);
  // LEAD_RETENTION_DAYS: one worker of the fleet per hour deletes the leads past it (lead-retention-sweep.ts).
  const retention = startLeadRetentionSweep(db, queues, events, { days: config.leads.retentionDays });
  // WEBHOOK_DELIVERY_RETENTION_DAYS: one worker of the fleet per hour deletes the finished deliveries past it.
  const webhookRetention = startWebhookRetentionSweep(db, queues, { days: config.webhooks.retentionDays });
  // Test accounts' credits (decision 036): one worker of the fleet per hour restores those whose last grant is a day old.
  const testCredits = startTestCreditsSweep(db, queues);
  // Confirmed objections (decision 042): applied by the workers that deliver webhooks, the ones holding the secrets' key.
  const objections = config.webhooks.deliver
    ? startObjectionSweep({
        db,
        webhooks: webhooks.producer,
        events,
        noticeDays: config.objections.noticeDays,
        noticeRetentionDays: config.objections.noticeRetentionDays,
      })
    : { stop: async () => undefined };
  const sweep = {
    stop: async () => {
      slots.stop();
      turns.stop();
      await Promise.all([lostJobs.stop(), retention.stop(), webhookRetention?.stop(), testCredits.stop(), objections.stop()]);
    },
  };
  logger.info('worker started', {
    sources,
    concurrency: config.worker.concurrency,
    providers: sources.map((s) => providers[s]?.name),
    webhooks: config.webhooks.deliver ? config.webhooks.concurrency : 0,
  });

  let draining = false;
  return {
    sources,
    turns: (accountId) => turns.state(accountId),
    readiness: workerReadiness({
      db,
      queues,
      sources,
      webhooks: webhooks.consumer ? webhooks.producer : null,
      consumers: [...consumers.workers, ...(webhooks.consumer ? [webhooks.consumer] : []), monitors.consumer],
      isDraining: () => draining,
    }),
    async close() {
      draining = true;
      await shutDownWorker(config, { consumers, webhooks, monitors, sweep, queues, subscription, publisherConnection, providers, db });
    },
  };
}

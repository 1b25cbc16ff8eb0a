import type { Config } from '@leadgen/config';
import { countMonitorsDue, monitorsDueBefore, tickMonitor, type Database, type TickOutcome } from '@leadgen/db';
import { enqueueReleased, releaseBatchChildren, type HeldJobRelease } from '@leadgen/commands';
import { logger, withLogContext } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import {
  connectionLog,
  createMonitorAlarms,
  createMonitorConsumer,
  MONITOR_QUEUE_NAME,
  type MonitorAlarms,
  type WebhookProducer,
  type Worker,
} from '@leadgen/queue';
import { startPeriodicSweep, type PeriodicSweep } from '../periodic-sweep';

// Monitors (decision 022): every worker process ticks monitors when their alarm rings, and the fleet
// (one worker per period) sets again the alarms of monitors due that Redis may have lost.

const TICK_CONCURRENCY = 2;
const SWEEP_BATCH = 500;

export interface MonitorRuntime {
  alarms: MonitorAlarms;
  consumer: Worker;
  close(): Promise<void>;
}

export interface MonitorTickDependencies {
  db: Database;
  config: Config;
  /** puts the jobs a run's creation released in their queue (decision 020) */
  release: HeldJobRelease;
  webhooks: WebhookProducer;
  alarms: MonitorAlarms;
}

/**
 * One tick: PostgreSQL decides (tickMonitor); then the run's job is enqueued (a batch's children released), the monitor.paused deliveries
 * too, and the next alarm set. None of these three can lose a run: a job left without its entry is enqueued
 * by the lost-job sweep, a delivery by the outbox sweep, an alarm by the monitor sweep.
 */
export async function runMonitorTick(deps: MonitorTickDependencies, monitorId: string, now = new Date()): Promise<TickOutcome> {
  const outcome = await tickMonitor(deps.db, monitorId, now, {
    idempotencyTtlHours: deps.config.api.idempotencyTtlHours,
    pauseAfterFailures: deps.config.monitors.pauseAfterFailures,
    // Fair queues (decision 020): a run is held while its account is at its cap for the source, as a generate is.
    fairness: deps.release.fairness,
  });
  const later = (what: string) => (error: unknown) =>
    logger.warn(`monitor tick: ${what} failed; the sweeps will make up for it`, { monitorId, error: (error as Error).message });
  switch (outcome.kind) {
    case 'created':
      metrics.monitorRuns.inc({ kind: 'scheduled', outcome: 'started' });
      logger.info('monitor run started', {
        monitorId,
        jobId: outcome.jobId,
        held: !outcome.released.includes(outcome.jobId),
        nextRunAt: outcome.nextRunAt.toISOString(),
      });
      // What create_job released (this run unless held, and older held jobs of the account), as settle-job enqueues them.
      await enqueueReleased(deps.release, outcome.source, outcome.accountId, outcome.released).catch(later('enqueue'));
      await deps.alarms.set(monitorId, outcome.nextRunAt).catch(later('next alarm'));
      break;
    case 'batch_created':
      metrics.monitorRuns.inc({ kind: 'scheduled', outcome: 'started' });
      metrics.batchesCreated.inc();
      for (const source of outcome.children) metrics.jobsCreated.inc({ source });
      logger.info('monitor run started', {
        monitorId,
        batchId: outcome.batchId,
        children: outcome.children.length,
        nextRunAt: outcome.nextRunAt.toISOString(),
      });
      // The batch's children are held, as a batch's always are: released under the account's cap (decision 020).
      // Left held if this fails: the periodic sweep releases held jobs still for LOST_JOB_AFTER_MS.
      await releaseBatchChildren({ db: deps.db, release: deps.release }, outcome.accountId, outcome.children).catch(later('release'));
      await deps.alarms.set(monitorId, outcome.nextRunAt).catch(later('next alarm'));
      break;
    case 'skipped':
      metrics.monitorRuns.inc({ kind: 'scheduled', outcome: 'skipped_overlap' });
      logger.info('monitor tick skipped: the previous run is still going', { monitorId, nextRunAt: outcome.nextRunAt.toISOString() });
      await deps.alarms.set(monitorId, outcome.nextRunAt).catch(later('next alarm'));
      break;
    case 'paused':
      metrics.monitorRuns.inc({ kind: 'scheduled', outcome: `paused_${outcome.reason}` });
      logger.warn('monitor paused by the service', { monitorId, reason: outcome.reason });
      await deps.webhooks.enqueue(outcome.webhookDeliveryIds).catch(later('monitor.paused delivery'));
      break;
    case 'not_due':
      if (outcome.nextRunAt) await deps.alarms.set(monitorId, outcome.nextRunAt).catch(later('alarm'));
      break;
  }
  return outcome;
}

/**
 * Sets again the alarm of every enabled monitor more than `lostAfterMs` past its due time without its tick: Redis
 * lost the alarm (an alarm still there is kept: one per monitor and due time). It rings at once.
 */
export async function restoreMonitorAlarms(db: Database, alarms: MonitorAlarms, lostAfterMs: number, now = new Date()): Promise<number> {
  const due = await monitorsDueBefore(db, new Date(now.getTime() - lostAfterMs), SWEEP_BATCH);
  for (const monitor of due) await alarms.set(monitor.id, monitor.nextRunAt);
  return due.length;
}

export async function startMonitorRuntime(
  config: Config,
  db: Database,
  parts: { release: HeldJobRelease; webhooks: WebhookProducer },
): Promise<MonitorRuntime> {
  const alarms = createMonitorAlarms(config.redis);
  const deps: MonitorTickDependencies = { db, config, alarms, ...parts };
  const consumer = createMonitorConsumer(
    (job) => withLogContext({ monitorId: job.data.monitorId }, () => runMonitorTick(deps, job.data.monitorId).then((o) => o.kind)),
    { redis: config.redis, concurrency: TICK_CONCURRENCY, lockMs: config.worker.lockMs, stalledCheckMs: config.worker.stalledCheckMs },
  );
  consumer.on('error', connectionLog('consumer:monitors').failed);
  consumer.on('failed', (job, error) => {
    if (job) logger.warn('monitor tick broke; tried again', { monitorId: job.data.monitorId, error: error.message });
  });
  void consumer.run();
  await consumer.waitUntilReady();
  metrics.queueConsumers.set({ queue: MONITOR_QUEUE_NAME }, TICK_CONCURRENCY);
  const sweep: PeriodicSweep = startPeriodicSweep('monitor alarm sweep', config.monitors.sweepMs, async () => {
    metrics.monitorsDue.set(await countMonitorsDue(db, new Date()));
    if (await alarms.claimPeriodicTask('monitor-alarms', config.monitors.sweepMs)) {
      await restoreMonitorAlarms(db, alarms, config.monitors.lostAfterMs);
    }
  });
  return {
    alarms,
    consumer,
    async close() {
      metrics.queueConsumers.set({ queue: MONITOR_QUEUE_NAME }, 0);
      await sweep.stop();
      await consumer.close();
      await alarms.close();
    },
  };
}

import { tickMonitor, type Lifecycle, type TickOutcome } from '@leadgen/commands';
import type { Config } from '@leadgen/config';
import { countMonitorsDue, monitorsDueBefore, type Database } from '@leadgen/db';
import { logger, withLogContext } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import {
  connectionLog,
  createMonitorAlarms,
  createMonitorConsumer,
  MONITOR_QUEUE_NAME,
  type MonitorAlarms,
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
  lifecycle: Lifecycle;
  config: Config;
  alarms: MonitorAlarms;
}

/**
 * One tick: the run is decided, committed and told by @leadgen/commands (tickMonitor: its job enqueued or a batch's
 * children released, the monitor.paused deliveries enqueued, the count); then the next alarm is set. None of these
 * can lose a run: a job left without its entry is enqueued by the lost-job sweep, a delivery by the outbox sweep,
 * an alarm by the monitor sweep.
 */
export async function runMonitorTick(deps: MonitorTickDependencies, monitorId: string, now = new Date()): Promise<TickOutcome> {
  const outcome = await tickMonitor(deps.lifecycle, monitorId, now, deps.config.monitors.pauseAfterFailures);
  const setAlarm = (at: Date) =>
    deps.alarms
      .set(monitorId, at)
      .catch((error: unknown) =>
        logger.warn('monitor tick: next alarm failed; the sweeps will make up for it', { monitorId, error: (error as Error).message }),
      );
  switch (outcome.kind) {
    case 'created':
      logger.info('monitor run started', {
        monitorId,
        jobId: outcome.jobId,
        batchId: outcome.batchId,
        nextRunAt: outcome.nextRunAt.toISOString(),
      });
      await setAlarm(outcome.nextRunAt);
      break;
    case 'skipped':
      logger.info('monitor tick skipped: the previous run is still going', { monitorId, nextRunAt: outcome.nextRunAt.toISOString() });
      await setAlarm(outcome.nextRunAt);
      break;
    case 'paused':
      logger.warn('monitor paused by the service', { monitorId, reason: outcome.reason });
      break;
    case 'not_due':
      if (outcome.nextRunAt) await setAlarm(outcome.nextRunAt);
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

export async function startMonitorRuntime(config: Config, lifecycle: Lifecycle): Promise<MonitorRuntime> {
  const { db } = lifecycle;
  const alarms = createMonitorAlarms(config.redis);
  const deps: MonitorTickDependencies = { lifecycle, config, alarms };
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

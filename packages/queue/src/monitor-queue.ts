import { Queue, Worker, type Job } from 'bullmq';
import { answerWithin } from '@leadgen/ops';
import { claimPeriodicTask } from './periodic-task-claim';
import {
  closeRedis,
  ignoreConnectionErrors,
  producerConnection,
  redisConnection,
  redisKeys,
  waitUntilConnected,
  type RedisSettings,
} from './redis-connections';
import { MONITOR_QUEUE_NAME, type MonitorAlarmPayload } from './queue-names';

// The monitors' alarm clock (decision 022). An entry's id is the monitor and its due time, so setting
// the same alarm twice (the API, then the sweep) leaves one entry; an entry that rings for a due time
// PostgreSQL has moved since does nothing.

const ENTRY_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1_000 },
  // Ended entries are dropped, so the sweep can set an alarm of the same id again if a tick never happened.
  removeOnComplete: true,
  removeOnFail: true,
};

const TIMEOUT_MS = 3_000;
const CONNECTING_GRACE_MS = 1_000;

export const alarmId = (monitorId: string, dueAt: Date): string => `${monitorId}-${dueAt.getTime()}`;

export interface MonitorAlarms {
  /** rings at `dueAt` (at once if it has passed); an alarm of the same monitor and due time is kept as it is */
  set(monitorId: string, dueAt: Date): Promise<void>;
  /** removes the alarm for that due time, if it has not rung */
  cancel(monitorId: string, dueAt: Date): Promise<void>;
  /** true for the one caller per key and period, fleet-wide */
  claimPeriodicTask(name: string, periodMs: number): Promise<boolean>;
  queue(): Queue;
  close(): Promise<void>;
}

export function createMonitorAlarms(settings: RedisSettings, name = 'monitor-alarms'): MonitorAlarms {
  const connection = producerConnection(settings, name);
  const keys = redisKeys(settings);
  const queue = ignoreConnectionErrors(
    new Queue<MonitorAlarmPayload>(MONITOR_QUEUE_NAME, { connection, prefix: keys.queuePrefix(MONITOR_QUEUE_NAME) }),
  );
  const ready = async () => {
    if (connection.status !== 'ready') await waitUntilConnected(connection, CONNECTING_GRACE_MS);
    if (connection.status !== 'ready') throw new Error(`redis connection is ${connection.status}`);
  };
  return {
    async set(monitorId, dueAt) {
      await ready();
      const payload = { monitorId, dueAt: dueAt.toISOString() };
      const delay = Math.max(0, dueAt.getTime() - Date.now());
      await answerWithin(
        TIMEOUT_MS,
        queue.add(MONITOR_QUEUE_NAME, payload, { ...ENTRY_OPTIONS, jobId: alarmId(monitorId, dueAt), delay }),
        'redis',
      );
    },
    async cancel(monitorId, dueAt) {
      await ready();
      // remove() refuses an entry a worker holds: that tick finds the due time moved and does nothing.
      await answerWithin(TIMEOUT_MS, queue.remove(alarmId(monitorId, dueAt)), 'redis');
    },
    claimPeriodicTask: (task, periodMs) => claimPeriodicTask(connection, keys, task, periodMs),
    queue: () => queue,
    async close() {
      if (connection.status === 'ready') await queue.close();
      await closeRedis(connection);
    },
  };
}

export type MonitorAlarmHandler = (job: Job<MonitorAlarmPayload>) => Promise<unknown>;

/** The monitor queue's consumer: a tick is a few statements, so a few at once is plenty. */
export function createMonitorConsumer(
  handler: MonitorAlarmHandler,
  options: { redis: RedisSettings; concurrency: number; lockMs: number; stalledCheckMs: number },
): Worker<MonitorAlarmPayload> {
  const connection = redisConnection(options.redis, 'blocking', 'consumer:monitors');
  const worker = new Worker<MonitorAlarmPayload>(MONITOR_QUEUE_NAME, handler, {
    connection,
    prefix: redisKeys(options.redis).queuePrefix(MONITOR_QUEUE_NAME),
    concurrency: options.concurrency,
    lockDuration: options.lockMs,
    stalledInterval: options.stalledCheckMs,
    autorun: false,
  });
  worker.once('closed', () => void closeRedis(connection));
  return worker;
}

import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { answerWithin, type QueueCounts } from '@leadgen/ops';
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
import { probeQueue } from './queue-probe';
import { WEBHOOK_QUEUE_NAME, type WebhookDeliveryPayload } from './queue-names';

// The webhook queue (decision 016): entries carry attempts of deliveries that PostgreSQL records.
// PostgreSQL decides whether and when a delivery is tried again; BullMQ only waits that long.

const BACKOFF_TYPE = 'webhook-schedule';

const ENTRY_OPTIONS = {
  // The round's length is decided from PostgreSQL (its attempts), so this only needs to be out of reach.
  attempts: 1_000,
  backoff: { type: BACKOFF_TYPE },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

const ENQUEUE_TIMEOUT_MS = 3_000;
// A producer made just now (the admin CLI's) is still connecting: a moment for it, not for a Redis that is away.
const CONNECTING_GRACE_MS = 1_000;

/** Thrown by a handler whose attempt failed and that PostgreSQL says to try again after `delayMs`. */
export class WebhookRetryLater extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'WebhookRetryLater';
  }
}

/** Thrown by a handler whose delivery failed for good: the entry ends failed, never retried by BullMQ. */
export class WebhookDeliveryFailed extends UnrecoverableError {
  constructor(reason: string) {
    super(reason);
    this.name = 'WebhookDeliveryFailed';
  }
}

/**
 * Thrown by a handler that moved its entry to the delayed set itself (a parked delivery: its target or account
 * held all its places). BullMQ leaves such an entry where the handler put it; nothing is counted as an attempt.
 */
export class WebhookParked extends DelayedError {
  constructor(reason: string) {
    super(reason);
  }
}

export interface WebhookProducer {
  /** enqueues deliveries now (or after `delayMs`); an id already in the queue is left as it is */
  enqueue(deliveryIds: readonly string[], delayMs?: number): Promise<void>;
  /** true when the delivery has no waiting, delayed or active entry: Redis lost it, or it ended */
  hasNoLiveEntry(deliveryId: string): Promise<boolean>;
  /** puts a delivery back in the queue after `delayMs`, replacing an ended entry of the same id */
  requeue(deliveryId: string, delayMs: number): Promise<void>;
  /** moves parked deliveries' delayed entries to the queue now; an entry no longer delayed is left as it is */
  wake(deliveryIds: readonly string[]): Promise<void>;
  /** true for the one caller per key and period, fleet-wide (SET NX PX) */
  claimPeriodicTask(name: string, periodMs: number): Promise<boolean>;
  queue(): Queue;
  /** the queue's waiting, active and delayed entries, for the queue-depth metric */
  counts(): Promise<QueueCounts>;
  /** a script on the queue's own keys (queue-probe.ts) */
  probe(): Promise<void>;
  close(): Promise<void>;
}

export function createWebhookProducer(settings: RedisSettings, name = 'webhook-producer'): WebhookProducer {
  const connection = producerConnection(settings, name);
  const keys = redisKeys(settings);
  const queue = ignoreConnectionErrors(
    new Queue<WebhookDeliveryPayload>(WEBHOOK_QUEUE_NAME, { connection, prefix: keys.queuePrefix(WEBHOOK_QUEUE_NAME) }),
  );
  const add = (deliveryId: string, delayMs: number) =>
    queue.add(WEBHOOK_QUEUE_NAME, { deliveryId }, { ...ENTRY_OPTIONS, jobId: deliveryId, delay: Math.max(0, Math.round(delayMs)) });
  return {
    async enqueue(deliveryIds, delayMs = 0) {
      if (deliveryIds.length === 0) return;
      if (connection.status !== 'ready') await waitUntilConnected(connection, CONNECTING_GRACE_MS);
      if (connection.status !== 'ready') throw new Error(`redis connection is ${connection.status}`);
      await answerWithin(ENQUEUE_TIMEOUT_MS, Promise.all(deliveryIds.map((id) => add(id, delayMs))), 'redis');
    },
    async hasNoLiveEntry(deliveryId) {
      const state = await queue.getJobState(deliveryId);
      return state === 'unknown' || state === 'completed' || state === 'failed';
    },
    async requeue(deliveryId, delayMs) {
      // An ended entry keeps its id: BullMQ would ignore an add under it, so it goes first.
      await queue.remove(deliveryId);
      await add(deliveryId, delayMs);
    },
    async wake(deliveryIds) {
      for (const id of deliveryIds) {
        const job = await queue.getJob(id);
        // Taken meanwhile by its backstop, or ended: nothing to wake.
        await job?.promote().catch(() => undefined);
      }
    },
    claimPeriodicTask: (task, periodMs) => claimPeriodicTask(connection, keys, task, periodMs),
    queue: () => queue,
    async counts() {
      const c = await queue.getJobCounts('waiting', 'active', 'delayed');
      return { [WEBHOOK_QUEUE_NAME]: { waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0 } };
    },
    probe: () => probeQueue(connection, queue),
    async close() {
      if (connection.status === 'ready') await queue.close();
      await closeRedis(connection);
    },
  };
}

/** BullMQ's processor: `token` is the entry's lock, which a handler that parks its entry (moveToDelayed) needs. */
export type WebhookDeliveryHandler = (job: Job<WebhookDeliveryPayload>, token?: string) => Promise<unknown>;

export interface WebhookConsumerOptions {
  redis: RedisSettings;
  concurrency: number;
  lockMs: number;
  stalledCheckMs: number;
}

/**
 * The webhook queue's own BullMQ Worker, with its own concurrency: a slow receiver holds one of
 * these slots, never a lead job's. A failed attempt's next try waits what the handler decided
 * (the schedule with its jitter), through BullMQ's custom backoff strategy.
 */
export function createWebhookConsumer(handler: WebhookDeliveryHandler, options: WebhookConsumerOptions): Worker<WebhookDeliveryPayload> {
  const connection = redisConnection(options.redis, 'blocking', 'consumer:webhooks');
  const worker = new Worker<WebhookDeliveryPayload>(WEBHOOK_QUEUE_NAME, handler, {
    // BullMQ makes its blocking connection from this one and closes only that one.
    connection,
    prefix: redisKeys(options.redis).queuePrefix(WEBHOOK_QUEUE_NAME),
    concurrency: options.concurrency,
    lockDuration: options.lockMs,
    stalledInterval: options.stalledCheckMs,
    // A worker that died mid-attempt is not the receiver's fault: the attempt is made again, however often.
    maxStalledCount: 1_000_000,
    autorun: false,
    settings: {
      // Anything else (PostgreSQL away, a bug) is tried again sooner, doubling up to a minute.
      backoffStrategy: (attemptsMade: number, type?: string, error?: Error) =>
        type === BACKOFF_TYPE && error instanceof WebhookRetryLater
          ? error.delayMs
          : Math.min(60_000, 1_000 * 2 ** Math.min(attemptsMade, 6)),
    },
  });
  worker.once('closed', () => void closeRedis(connection));
  return worker;
}

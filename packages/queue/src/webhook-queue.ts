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
import { runScript, type RedisScript } from './redis-keys';
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

/*
 * Turns among accounts. One queue serves every account, and BullMQ's open-source edition takes entries first come,
 * first served (its groups are a Pro feature): an account that settles hundreds of jobs a second with webhooks put
 * hundreds of deliveries ahead of another account's one (issue 31, finding 2). So each entry has a turn, its place
 * among its account's entries not yet taken: an account's next entry (turn 1) goes to the wait list, which BullMQ
 * takes first come, first served before any prioritized entry; its later ones are added with their turn as BullMQ
 * priority (its 100th, priority 100; lower first, in order of adding among equals). Another account's entry therefore
 * waits behind at most one entry of each busy account, as in a round robin, and the wait list holds one entry per
 * account with deliveries waiting (what KEDA's webhook trigger counts: accounts, each capped at
 * WEBHOOK_CONCURRENCY_PER_ACCOUNT attempts in flight whatever the fleet). The turn is one counter per account in
 * Redis, raised by the entries added (one script), lowered when an entry is first taken; it lapses after
 * TURNS_KEEP_MS without an entry added, so a count that drifted (an entry removed, a process gone between the two)
 * costs that account at most a worse turn for that long. An entry whose account is not known (an objection notice
 * to many accounts) goes to the wait list.
 */
const TURNS_KEEP_MS = 5 * 60_000;
// BullMQ's largest priority (2^21 - 1).
const LAST_TURN = 2_097_151;
const ADD_TURNS: RedisScript = {
  name: 'webhookAddTurns',
  keys: 1,
  lua: `
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n`,
};
const TAKE_TURN: RedisScript = {
  name: 'webhookTakeTurn',
  keys: 1,
  lua: `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 0`,
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
  /**
   * Enqueues deliveries now (or after `delayMs`); an id already in the queue is left as it is. With the deliveries'
   * account, they take their turns among its other entries (all the ids must be that account's).
   */
  enqueue(deliveryIds: readonly string[], delayMs?: number, accountId?: string): Promise<void>;
  /** true when the delivery has no waiting, delayed or active entry: Redis lost it, or it ended */
  hasNoLiveEntry(deliveryId: string): Promise<boolean>;
  /** puts a delivery back in the queue after `delayMs`, replacing an ended entry of the same id */
  requeue(deliveryId: string, delayMs: number, accountId?: string): Promise<void>;
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
  const add = async (deliveryIds: readonly string[], delayMs: number, accountId: string | undefined) => {
    // The account's entries not yet taken, these included: the first of these has the turn after the others.
    const first = accountId
      ? Number(await runScript(connection, ADD_TURNS, [keys.account(accountId).webhookWaiting], [deliveryIds.length, TURNS_KEEP_MS])) -
        deliveryIds.length +
        1
      : 1;
    await Promise.all(
      deliveryIds.map((deliveryId, i) =>
        queue.add(WEBHOOK_QUEUE_NAME, accountId ? { deliveryId, accountId } : { deliveryId }, {
          ...ENTRY_OPTIONS,
          jobId: deliveryId,
          delay: Math.max(0, Math.round(delayMs)),
          // An account's next entry goes to the wait list (taken before any prioritized one), the rest by turn.
          ...(first + i > 1 ? { priority: Math.min(LAST_TURN, first + i) } : {}),
        }),
      ),
    );
  };
  return {
    async enqueue(deliveryIds, delayMs = 0, accountId) {
      if (deliveryIds.length === 0) return;
      if (connection.status !== 'ready') await waitUntilConnected(connection, CONNECTING_GRACE_MS);
      if (connection.status !== 'ready') throw new Error(`redis connection is ${connection.status}`);
      await answerWithin(ENQUEUE_TIMEOUT_MS, add(deliveryIds, delayMs, accountId), 'redis');
    },
    async hasNoLiveEntry(deliveryId) {
      const state = await queue.getJobState(deliveryId);
      return state === 'unknown' || state === 'completed' || state === 'failed';
    },
    async requeue(deliveryId, delayMs, accountId) {
      // An ended entry keeps its id: BullMQ would ignore an add under it, so it goes first.
      await queue.remove(deliveryId);
      await add([deliveryId], delayMs, accountId);
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
      // Entries after an account's next wait their turn in BullMQ's prioritized set: waiting too.
      const c = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed');
      return {
        [WEBHOOK_QUEUE_NAME]: { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0 },
      };
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
  const keys = redisKeys(options.redis);
  // An entry taken for the first time gives its account's turn back (see ADD_TURNS); a failure to say so only
  // leaves the account's next entries a worse turn until the count lapses.
  const processor = async (job: Job<WebhookDeliveryPayload>, token?: string) => {
    if (job.data.accountId && job.attemptsStarted <= 1)
      await runScript(connection, TAKE_TURN, [keys.account(job.data.accountId).webhookWaiting], []).catch(() => undefined);
    return handler(job, token);
  };
  const worker = new Worker<WebhookDeliveryPayload>(WEBHOOK_QUEUE_NAME, processor, {
    // BullMQ makes its blocking connection from this one and closes only that one.
    connection,
    prefix: keys.queuePrefix(WEBHOOK_QUEUE_NAME),
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

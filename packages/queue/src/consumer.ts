import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { JobStatus, Source, StopReason } from '@leadgen/domain';
import { closeRedis, redisConnection, redisKeys, type RedisSettings } from './redis-connections';
import type { QueuePayloads } from './queue-names';
import { shardQueueName } from './queue-shards';

/** A queue entry's return value: the job's terminal object as PostgreSQL settled it (what Bull Board shows). */
export interface LeadJobResult {
  jobId: string;
  status: JobStatus;
  requestedCount: number;
  deliveredCount: number;
  stopReason: StopReason | null;
  creditsCharged: number | null;
  provider: string | null;
  finishedAt: string | null;
  /** what the job cost upstream over all its runs, as PostgreSQL recorded it (decision 038): the board's record of it */
  upstreamCalls: Record<string, number>;
}

/**
 * What the worker app implements for a queue: the terminal object once the job is terminal in
 * PostgreSQL, null when the entry had no job to run. Throwing means "retry" (BullMQ's attempts).
 */
export type LeadJobHandler<S extends Source> = (
  job: Job<QueuePayloads[S]>,
  token: string,
  signal: AbortSignal,
) => Promise<LeadJobResult | null>;

/**
 * A FAILED job ends its entry as failed, so the board's Failed tab lists exactly the FAILED jobs. It is
 * thrown only after the settlement is in PostgreSQL, and as BullMQ's UnrecoverableError: a business
 * failure is final, BullMQ's attempts are for crashes and infrastructure faults.
 */
export class JobFailedError extends UnrecoverableError {
  constructor(readonly result: LeadJobResult) {
    super(`FAILED ${result.stopReason ?? ''}: ${JSON.stringify(result)}`);
    // What the board shows as the stack trace: the terminal object, not this module's frames.
    this.stack = this.message;
  }
}

// Effectively unbounded, yet a number BullMQ's Lua compares safely.
const MAX_STALLS = 1_000_000;

export interface ConsumerOptions {
  redis: RedisSettings;
  concurrency: number;
  lockMs: number;
  stalledCheckMs: number;
}

/** A consumer of one shard of a source's queue (queue-shards.ts; shard 0 is the source's queue of one shard). */
export function createLeadConsumer<S extends Source>(
  source: S,
  shard: number,
  handler: LeadJobHandler<S>,
  options: ConsumerOptions,
): Worker<QueuePayloads[S]> {
  const name = shardQueueName(source, shard);
  const connection = redisConnection(options.redis, 'blocking', `consumer:${name}`);
  const worker = new Worker<QueuePayloads[S]>(
    name,
    async (job, token, signal) => {
      const result = await handler(job, token ?? '', signal ?? new AbortController().signal);
      if (result?.status === 'FAILED') throw new JobFailedError(result);
      return result;
    },
    {
      // BullMQ makes its blocking connection from this one and closes only that one.
      connection,
      prefix: redisKeys(options.redis).queuePrefix(name),
      concurrency: options.concurrency,
      lockDuration: options.lockMs,
      stalledInterval: options.stalledCheckMs,
      // A stall is the death of the job's host, not a fault of the job: it is resumed however often
      // that happens. What ends a job whose hosts keep dying is its own time budget (JOB_TIMEOUT_MS,
      // from its first start): the next worker past it settles it as `timeout`. Failures of the job's
      // own code are counted by `attempts` (enqueue.ts) instead.
      maxStalledCount: MAX_STALLS,
      autorun: false,
    },
  );
  worker.once('closed', () => void closeRedis(connection));
  return worker;
}

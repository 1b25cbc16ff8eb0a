import { Worker, type Job } from 'bullmq';
import type { Source } from '@leadgen/domain';
import { workerConnectionOptions } from './connection';
import { QUEUE_NAMES, type QueuePayloads } from './queue-names';

/** What the worker app implements for a queue. */
export type LeadJobHandler<S extends Source> = (job: Job<QueuePayloads[S]>, token: string, signal: AbortSignal) => Promise<void>;

// Effectively unbounded, yet a number BullMQ's Lua compares safely.
const MAX_STALLS = 1_000_000;

export interface ConsumerOptions {
  redisUrl: string;
  prefix: string;
  concurrency: number;
  lockMs: number;
  stalledCheckMs: number;
}

export function createLeadConsumer<S extends Source>(source: S, handler: LeadJobHandler<S>, options: ConsumerOptions): Worker<QueuePayloads[S]> {
  return new Worker<QueuePayloads[S]>(
    QUEUE_NAMES[source],
    async (job, token, signal) => {
      await handler(job, token ?? '', signal ?? new AbortController().signal);
    },
    {
      connection: workerConnectionOptions(options.redisUrl),
      prefix: options.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockMs,
      stalledInterval: options.stalledCheckMs,
      // A stall is the death of the job's host, not a fault of the job: it is resumed however often
      // that happens. What ends a job whose hosts keep dying is its own time budget (JOB_TIMEOUT_MS,
      // from its first start): the next worker past it settles it as `timeout`. Failures of the job's
      // own code are counted by `attempts` (producer.ts) instead.
      maxStalledCount: MAX_STALLS,
      autorun: false,
    },
  );
}

import { Worker, type Job } from 'bullmq';
import type { Source } from '@leadgen/domain';
import { workerConnectionOptions } from './connection';
import { QUEUE_NAMES, type QueuePayloads } from './queue-names';

/** What the worker app implements for a queue. */
export type LeadJobHandler<S extends Source> = (job: Job<QueuePayloads[S]>, token: string, signal: AbortSignal) => Promise<void>;

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
      // A worker killed twice on one job is more likely a poison job than bad luck; after that it fails.
      maxStalledCount: 2,
      autorun: false,
    },
  );
}

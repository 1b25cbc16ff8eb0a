import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { SOURCES, type Source } from '@leadgen/domain';
import { producerConnection } from './connection';
import { jobEventPublisher, type JobEventPublisher } from './job-events';
import { QUEUE_NAMES, type LeadJobPayload } from './queue-names';

export interface JobProducer extends JobEventPublisher {
  enqueue(source: Source, payload: LeadJobPayload): Promise<void>;
  /** removes a job that no worker holds yet; true when it was removed */
  removeWaiting(source: Source, jobId: string): Promise<boolean>;
  queues(): Queue[];
  ping(): Promise<void>;
  close(): Promise<void>;
}

// Retries here are for crashes and infrastructure faults only: provider errors end the job
// through its terminal status, not through BullMQ's retry.
const JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

export function createJobProducer(redisUrl: string, prefix: string): JobProducer {
  const connection: Redis = producerConnection(redisUrl);
  // Errors surface through the failing command; without a listener ioredis would also print them.
  connection.on('error', () => undefined);
  const queues = new Map<Source, Queue>();
  for (const source of SOURCES) {
    const queue = new Queue(QUEUE_NAMES[source], { connection, prefix });
    queue.on('error', () => undefined);
    queues.set(source, queue);
  }
  const queueOf = (source: Source) => queues.get(source)!;

  return {
    async enqueue(source, payload) {
      await queueOf(source).add(source, { ...payload, source }, { ...JOB_OPTIONS, jobId: payload.jobId });
    },
    async removeWaiting(source, jobId) {
      const job = await queueOf(source).getJob(jobId);
      if (!job) return false;
      // remove() refuses a job a worker holds (it is locked): that one stops through the cancel message.
      return job.remove().then(() => true, () => false);
    },
    ...jobEventPublisher(connection, prefix),
    queues: () => [...queues.values()],
    async ping() {
      await connection.ping();
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}

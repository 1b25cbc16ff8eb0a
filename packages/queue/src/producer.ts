import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { SOURCES, type Source } from '@leadgen/domain';
import { closeRedis, producerConnection } from './connection';
import { jobEventPublisher, type JobEventPublisher } from './job-events';
import { QUEUE_NAMES, type LeadJobPayload } from './queue-names';

export interface JobProducer extends JobEventPublisher {
  enqueue(source: Source, payload: LeadJobPayload): Promise<void>;
  /** removes a job that no worker holds yet; true when it was removed */
  removeWaiting(source: Source, jobId: string): Promise<boolean>;
  /** true when the job has no waiting, delayed or active entry: Redis lost it, or it ended */
  hasNoLiveEntry(source: Source, jobId: string): Promise<boolean>;
  /** puts a job back in its queue, replacing an ended entry of the same id */
  requeue(source: Source, payload: LeadJobPayload): Promise<void>;
  /** true for the one caller per key and period, fleet-wide (SET NX PX) */
  claimPeriodicTask(name: string, periodMs: number): Promise<boolean>;
  queues(): Queue[];
  ping(): Promise<void>;
  /** resolves once the connection is up, fails to come up, or after `ms` (it fails fast, it never queues) */
  waitUntilReady(ms: number): Promise<void>;
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

const ENQUEUE_TIMEOUT_MS = 3_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

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
      // BullMQ waits for a connection to become ready; a request must not, so refuse while it is not.
      if (connection.status !== 'ready') throw new Error(`redis connection is ${connection.status}`);
      await withTimeout(
        queueOf(source).add(source, { ...payload, source }, { ...JOB_OPTIONS, jobId: payload.jobId }),
        ENQUEUE_TIMEOUT_MS,
      );
    },
    async removeWaiting(source, jobId) {
      const job = await queueOf(source).getJob(jobId);
      if (!job) return false;
      // remove() refuses a job a worker holds (it is locked): that one stops through the cancel message.
      return job.remove().then(() => true, () => false);
    },
    ...jobEventPublisher(connection, prefix),
    async hasNoLiveEntry(source, jobId) {
      const state = await queueOf(source).getJobState(jobId);
      return state === 'unknown' || state === 'completed' || state === 'failed';
    },
    async requeue(source, payload) {
      const queue = queueOf(source);
      // An ended entry keeps its id: BullMQ would ignore an add under it, so it goes first.
      await queue.remove(payload.jobId);
      await queue.add(source, { ...payload, source }, { ...JOB_OPTIONS, jobId: payload.jobId });
    },
    async claimPeriodicTask(name, periodMs) {
      return (await connection.set(`${prefix}:task:${name}`, '1', 'PX', periodMs, 'NX')) === 'OK';
    },
    queues: () => [...queues.values()],
    async ping() {
      await connection.ping();
    },
    async waitUntilReady(ms) {
      if (connection.status === 'ready') return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          connection.off('ready', done);
          connection.off('error', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        connection.once('ready', done);
        connection.once('error', done);
      });
    },
    async close() {
      // Queues share this connection; once it is gone they have nothing left to close.
      if (connection.status === 'ready') await Promise.all([...queues.values()].map((q) => q.close()));
      await closeRedis(connection);
    },
  };
}

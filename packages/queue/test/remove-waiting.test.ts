import { randomBytes } from 'node:crypto';
import { Worker } from 'bullmq';
import { loadConfig } from '@leadgen/config';
import { createJobProducer, QUEUE_NAMES, type JobProducer } from '../src';

// A cancel removes the queue entry of a job no worker has taken; the entry of one a worker took, or finished,
// is the board's record of it and stays.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `lgtest-remove-${randomBytes(4).toString('hex')}`;
let producer: JobProducer;
beforeAll(async () => {
  producer = createJobProducer(loadConfig({ REDIS_URL, QUEUE_PREFIX: prefix }).redis);
  await producer.waitUntilReady(2000);
});
afterAll(() => producer.close());

const payload = () => ({ jobId: `job_${randomBytes(12).toString('hex')}`, accountId: 'acc_test' });

describe('removeWaiting', () => {
  it('when the entry is still waiting, then it is removed', async () => {
    const job = payload();
    await producer.enqueueReleased('shopify', job.accountId, [job.jobId]);
    expect(await producer.removeWaiting('shopify', job.accountId, job.jobId)).toBe(true);
    expect(await producer.queue('shopify').getJob(job.jobId)).toBeUndefined();
  });

  it('when a worker finished the entry before the cancel reached the queue, then it stays, completed', async () => {
    const job = payload();
    const worker = new Worker(QUEUE_NAMES.linkedin, async () => 'finished', { connection: { url: REDIS_URL }, prefix });
    try {
      const completed = new Promise<void>((resolve) => worker.on('completed', (entry) => entry.id === job.jobId && resolve()));
      await producer.enqueueReleased('linkedin', job.accountId, [job.jobId]);
      await completed;
    } finally {
      await worker.close();
    }
    expect(await producer.removeWaiting('linkedin', job.accountId, job.jobId)).toBe(false);
    const entry = await producer.queue('linkedin').getJob(job.jobId);
    expect(await entry?.getState()).toBe('completed');
  });
});

// Baseline (c): Express 5 POST → queue.add → a no-op BullMQ Worker in another process → the
// completion event (QueueEvents) → 200. The least a synchronous job API over a queue can do;
// compared with sync generate. BASELINE_ROLE=api or worker picks the half this process runs.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { JOB_OPTIONS, PORT, PREFIX, QUEUE, connection } from './shared';

function api(): void {
  const queue = new Queue(QUEUE, { connection: connection(), prefix: PREFIX });
  const events = new QueueEvents(QUEUE, { connection: connection(), prefix: PREFIX });
  const waiters = new Map<string, () => void>();
  events.on('completed', ({ jobId }) => waiters.get(jobId)?.());
  const app = express();
  app.use(express.json());
  app.get('/ready', async (_req, res) => {
    await events.waitUntilReady();
    // 503 until the worker process is connected: the bench measures nothing before that.
    const workers = await queue.getWorkersCount();
    res.status(workers > 0 ? 200 : 503).json({ workers });
  });
  app.post('/jobs', async (req, res) => {
    // Our own job id, so the waiter exists before the job can possibly complete.
    const jobId = randomUUID();
    const done = new Promise<void>((resolve) => waiters.set(jobId, resolve));
    await queue.add('job', req.body as object, { ...JOB_OPTIONS, jobId });
    await done;
    waiters.delete(jobId);
    res.status(200).json({ jobId, status: 'COMPLETE' });
  });
  app.listen(PORT, '127.0.0.1');
  process.on('SIGTERM', () => void Promise.all([queue.close(), events.close()]).finally(() => process.exit(0)));
}

function worker(): void {
  const w = new Worker(QUEUE, async () => null, {
    connection: connection(),
    prefix: PREFIX,
    concurrency: Number(process.env.BASELINE_CONCURRENCY ?? 50),
  });
  process.on('SIGTERM', () => void w.close().finally(() => process.exit(0)));
}

if (process.env.BASELINE_ROLE === 'worker') worker();
else api();

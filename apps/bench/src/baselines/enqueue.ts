// Baseline (b): Express 5 POST → BullMQ queue.add → 202: the least an asynchronous job API can do
// (parse a JSON body, one queue entry). Compared with `Prefer: respond-async` generate.
import express from 'express';
import { Queue } from 'bullmq';
import { JOB_OPTIONS, PORT, PREFIX, QUEUE, connection } from './shared';

const queue = new Queue(QUEUE, { connection: connection(), prefix: PREFIX });
const app = express();
app.use(express.json());
app.get('/ready', (_req, res) => void res.json({ ok: true }));
app.post('/jobs', async (req, res) => {
  const job = await queue.add('job', req.body as object, JOB_OPTIONS);
  res.status(202).json({ jobId: job.id, status: 'queued' });
});
app.listen(PORT, '127.0.0.1');
process.on('SIGTERM', () => void queue.close().finally(() => process.exit(0)));

// What the queue baselines share: one queue name, their Redis connection and their environment.
import { Redis } from 'ioredis';

export const QUEUE = 'bench-baseline';
export const PREFIX = process.env.QUEUE_PREFIX ?? 'bench-baseline';
export const PORT = Number(process.env.PORT);

/** BullMQ's blocking connections need maxRetriesPerRequest: null; the others accept it too. */
export function connection(): Redis {
  return new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
}

// Completed and failed jobs would otherwise stay in Redis for the whole run, as sets the bench never reads.
export const JOB_OPTIONS = { removeOnComplete: 1_000, removeOnFail: 1_000 } as const;

import type { Job } from 'bullmq';
import type { Source } from '@leadgen/domain';
import { answerWithin } from '@leadgen/ops';
import type { LeadQueues } from './lead-queues';

// Retries here are for crashes and infrastructure faults only: provider errors end the job
// through its terminal status, not through BullMQ's retry.
export const JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

const ENQUEUE_TIMEOUT_MS = 3_000;

/**
 * Adds jobs PostgreSQL has just released (decision 020: fair release), all of one account and source, in one
 * round trip (none: only the connection is checked). A request must not wait on Redis, so this fails at once while the
 * connection is not up and after ENQUEUE_TIMEOUT_MS when Redis does not answer (the caller withdraws a creation and
 * answers 503); a settlement's fallback is the lost-job sweep, which enqueues a released job that has no entry once it
 * has been still for LOST_JOB_AFTER_MS.
 */
export async function enqueueReleasedJobs(queues: LeadQueues, source: Source, accountId: string, jobIds: readonly string[]): Promise<void> {
  // Refused while Redis is not connected even with nothing to add: a creation whose job is held needs Redis as
  // much as one released at once (its release comes from a worker), so it answers 503 alike.
  if (queues.connection.status !== 'ready') throw new Error(`redis connection is ${queues.connection.status}`);
  if (jobIds.length === 0) return;
  // One account's jobs share a shard (queue-shards.ts): one round trip, in one slot.
  const queue = queues.queue(source, accountId);
  // One job (the common case: a creation, a settlement's next) is one script call; addBulk wraps its calls in
  // MULTI/EXEC, two commands more.
  const added: Promise<unknown> =
    jobIds.length === 1
      ? queue.add(source, { jobId: jobIds[0]!, accountId, source }, { ...JOB_OPTIONS, jobId: jobIds[0]! })
      : queue.addBulk(jobIds.map((jobId) => ({ name: source, data: { jobId, accountId, source }, opts: { ...JOB_OPTIONS, jobId } })));
  await answerWithin(ENQUEUE_TIMEOUT_MS, added, 'redis');
}

const WAITING_STATES = new Set(['waiting', 'delayed', 'prioritized', 'paused', 'waiting-children']);

/**
 * The entry of a job in its source's queue: in its account's shard, else (the shards were more or fewer when it was
 * enqueued) in another shard still consumed. Undefined when none has it.
 */
export async function findEntry(queues: LeadQueues, source: Source, accountId: string, jobId: string): Promise<Job | undefined> {
  const own = queues.queue(source, accountId);
  const found = await own.getJob(jobId);
  if (found || queues.shards === 1) return found;
  for (const queue of queues.shardsOf(source)) {
    if (queue === own) continue;
    const entry = await queue.getJob(jobId);
    if (entry) return entry;
  }
  return undefined;
}

/** Removes a job that no worker has taken yet (a cancel); true when it was removed. */
export async function removeWaitingJob(queues: LeadQueues, source: Source, accountId: string, jobId: string): Promise<boolean> {
  const job = await findEntry(queues, source, accountId, jobId);
  if (!job) return false;
  // Only an entry no worker has taken: one a worker finished meanwhile is the board's record of the job and
  // stays. An entry taken after this check is locked, and remove() refuses a locked one: that worker stops
  // through the cancel message. What is left is an entry taken and finished within one round trip.
  if (!WAITING_STATES.has(await job.getState())) return false;
  return job.remove().then(
    () => true,
    () => false,
  );
}

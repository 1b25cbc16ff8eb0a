import type { Source } from '@leadgen/domain';
import { JOB_OPTIONS } from './enqueue';
import type { LeadQueues } from './lead-queues';
import type { LeadJobPayload } from './queue-names';

/** What the worker's lost-job sweep asks of the queues. */
export interface LostJobQueue {
  /** true when the job has no waiting, delayed or active entry in a shard of its source: Redis lost it, or it ended */
  hasNoLiveEntry(source: Source, payload: LeadJobPayload): Promise<boolean>;
  /** puts a job back in its account's shard of its queue, replacing an ended entry of the same id */
  requeue(source: Source, payload: LeadJobPayload): Promise<void>;
}

export function lostJobQueue(queues: LeadQueues): LostJobQueue {
  return {
    async hasNoLiveEntry(source, { jobId, accountId }) {
      // Its account's shard first: one read for every job but the lost ones. A live entry in another shard still
      // consumed (QUEUE_SHARDS was raised since it was added) is left to run there; one in a shard no longer consumed
      // (QUEUE_SHARDS lowered) is not looked at, so the job is enqueued again where it is consumed.
      const own = queues.queue(source, accountId);
      for (const queue of [own, ...queues.shardsOf(source).filter((q) => q !== own)]) {
        const state = await queue.getJobState(jobId);
        if (!(state === 'unknown' || state === 'completed' || state === 'failed')) return false;
      }
      return true;
    },
    async requeue(source, payload) {
      const queue = queues.queue(source, payload.accountId);
      // An ended entry keeps its id: BullMQ would ignore an add under it, so it goes first.
      await queue.remove(payload.jobId);
      await queue.add(source, { ...payload, source }, { ...JOB_OPTIONS, jobId: payload.jobId });
    },
  };
}

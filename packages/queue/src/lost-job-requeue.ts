import type { Source } from '@leadgen/domain';
import { JOB_OPTIONS } from './enqueue';
import type { LeadQueues } from './lead-queues';
import type { LeadJobPayload } from './queue-names';

/** What the worker's lost-job sweep asks of the queues. */
export interface LostJobQueue {
  /** true when the job has no waiting, delayed or active entry: Redis lost it, or it ended */
  hasNoLiveEntry(source: Source, jobId: string): Promise<boolean>;
  /** puts a job back in its queue, replacing an ended entry of the same id */
  requeue(source: Source, payload: LeadJobPayload): Promise<void>;
}

export function lostJobQueue(queues: LeadQueues): LostJobQueue {
  return {
    async hasNoLiveEntry(source, jobId) {
      const state = await queues.queue(source).getJobState(jobId);
      return state === 'unknown' || state === 'completed' || state === 'failed';
    },
    async requeue(source, payload) {
      const queue = queues.queue(source);
      // An ended entry keeps its id: BullMQ would ignore an add under it, so it goes first.
      await queue.remove(payload.jobId);
      await queue.add(source, { ...payload, source }, { ...JOB_OPTIONS, jobId: payload.jobId });
    },
  };
}

import type { Source } from '@leadgen/domain';
import { enqueueReleasedJobs, removeWaitingJob } from './enqueue';
import { jobEventPublisher, type JobEventPublisher } from './job-events';
import { openLeadQueues, type LeadQueues } from './lead-queues';
import type { RedisSettings } from './redis-connections';

/**
 * What the API (and the admin CLI) holds of the queue: it enqueues the jobs it commits, and at a
 * cancel removes a waiting entry and tells the fleet. One fail-fast connection carries all of it.
 */
export interface JobProducer extends LeadQueues, JobEventPublisher {
  /** adds jobs PostgreSQL released (decision 020), all of one account and source, in one round trip */
  enqueueReleased(source: Source, accountId: string, jobIds: readonly string[]): Promise<void>;
  /** removes a job that no worker holds yet; true when it was removed */
  removeWaiting(source: Source, accountId: string, jobId: string): Promise<boolean>;
}

export function createJobProducer(settings: RedisSettings): JobProducer {
  const queues = openLeadQueues(settings, 'job-producer');
  return {
    ...queues,
    ...jobEventPublisher(queues.connection, queues.keys),
    enqueueReleased: (source, accountId, jobIds) => enqueueReleasedJobs(queues, source, accountId, jobIds),
    removeWaiting: (source, accountId, jobId) => removeWaitingJob(queues, source, accountId, jobId),
  };
}

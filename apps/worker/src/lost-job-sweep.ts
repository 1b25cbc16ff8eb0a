import type { Lifecycle } from '@leadgen/commands';
import type { Database } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { claimPeriodicTask, lostJobQueue, type LeadQueues } from '@leadgen/queue';
import { startPeriodicSweep, type PeriodicSweep } from './periodic-sweep';
import { releaseStrandedHeldJobs } from './release-held-jobs';
import { requeueLostJobs } from './requeue-lost-jobs';

/**
 * Runs `requeueLostJobs` once per `periodMs` for each source, fleet-wide: every worker process
 * serving a source checks each tick (and at start) whether the period's claim for that source is
 * free (SET NX PX), and the one that takes it sweeps. A job whose entry Redis lost is therefore
 * enqueued again at most `stillForMs + periodMs + 5 s` after it last moved, as long as one worker
 * for its source runs, however briefly each lives. With a `lifecycle`, the same claim then releases the held
 * jobs (decision 020) that fit under their account's share and no settlement released: nothing held is stranded.
 */
export function startLostJobSweep(
  db: Database,
  queues: LeadQueues,
  sources: readonly Source[],
  timing: { stillForMs: number; periodMs: number; lifecycle?: Lifecycle },
): PeriodicSweep {
  const queue = lostJobQueue(queues);
  return startPeriodicSweep('lost-job sweep', timing.periodMs, async () => {
    for (const source of sources) {
      if (await claimPeriodicTask(queues.connection, queues.keys, `requeue-lost-jobs:${source}`, timing.periodMs)) {
        await requeueLostJobs(db, queue, [source], Date.now(), timing.stillForMs);
        if (timing.lifecycle) await releaseStrandedHeldJobs(timing.lifecycle, source, timing.stillForMs);
      }
    }
  });
}

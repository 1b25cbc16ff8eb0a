import type { Database } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { claimPeriodicTask, lostJobQueue, type LeadQueues } from '@leadgen/queue';
import { requeueLostJobs } from './requeue-lost-jobs';

// Every process looks this often whether the fleet's period has come round: the sweep's cadence is
// the fleet's, not tied to any one process living a whole period.
const TICK_MS = 5_000;

export interface LostJobSweep {
  /** no more sweeps; resolves once a sweep under way has ended */
  stop(): Promise<void>;
}

/**
 * Runs `requeueLostJobs` once per `periodMs` for each source, fleet-wide: every worker process
 * serving a source checks each tick (and at start) whether the period's claim for that source is
 * free (SET NX PX), and the one that takes it sweeps. A job whose entry Redis lost is therefore
 * enqueued again at most `stillForMs + periodMs + 5 s` after it last moved, as long as one worker
 * for its source runs, however briefly each lives.
 */
export function startLostJobSweep(
  db: Database,
  queues: LeadQueues,
  sources: readonly Source[],
  timing: { stillForMs: number; periodMs: number },
): LostJobSweep {
  const queue = lostJobQueue(queues);
  let running: Promise<void> | null = null;
  const sweep = async () => {
    try {
      for (const source of sources) {
        if (await claimPeriodicTask(queues.connection, queues.prefix, `requeue-lost-jobs:${source}`, timing.periodMs)) {
          await requeueLostJobs(db, queue, [source], Date.now(), timing.stillForMs);
        }
      }
    } catch (error) {
      logger.warn('lost-job sweep failed', { error: (error as Error).message });
    }
  };
  const tick = () => {
    running ??= sweep().finally(() => (running = null));
  };
  tick();
  const timer = setInterval(tick, Math.min(TICK_MS, timing.periodMs));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

import { markReleased } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { answerWithin, metrics } from '@leadgen/ops';
import type { Lifecycle } from './lifecycle';

// A Redis that is up but does not answer must not hold a step's caller (a request, a worker slot, the CLI).
export const ANNOUNCE_WITHIN_MS = 3000;

/** What Redis did not take: PostgreSQL has the step either way, and each has its sweep (below). */
export type Untold = 'fleet' | 'webhooks' | 'released';

export interface JobOfSource {
  jobId: string;
  source: Source;
}

/** What a committed step of a job's life leaves to tell, all of one account. */
export interface Committed {
  accountId: string;
  /** the jobs the commit released (create_job, settle_job, release_held_jobs, borrow_held_jobs), oldest first: enqueued now */
  released?: readonly JobOfSource[];
  /** the jobs the commit created: counted; each source where one is still held after this step is nudged once */
  created?: readonly JobOfSource[];
  /** the created jobs are held by construction (a batch's children, decision 021): released now under the share */
  releaseCreated?: boolean;
  /** the webhook deliveries the commit raised (the outbox) */
  webhookDeliveryIds?: readonly string[];
  /** the commit created a batch (leadgen_batches_created_total) */
  batch?: boolean;
  /** the commit was a monitor's tick or manual run (leadgen_monitor_runs_total) */
  monitorRun?: { kind: 'scheduled' | 'manual'; outcome: string };
}

export interface AfterCommitOptions {
  /**
   * The caller withdraws its creation when the queue refuses what it released (the API's 503): the step then
   * throws before it counts or nudges anything. Otherwise a refusal is logged and returned, and the sweeps
   * make up for it (a released job without an entry is the lost-job sweep's, a held one the periodic release's).
   */
  strict?: boolean;
}

/**
 * The one step after every commit of a job's life (creating a job, a batch or a monitor's run, settling,
 * cancelling, releasing, borrowing): release a batch's held children under the share, enqueue what was
 * released, enqueue the webhook deliveries, nudge the fleet's idle slots for what is still held, count it.
 * Returns what Redis did not take.
 */
export async function afterCommit(lc: Lifecycle, committed: Committed, options: AfterCommitOptions = {}): Promise<Untold[]> {
  const untold: Untold[] = [];
  const created = committed.created ?? [];
  const released = [...(committed.released ?? [])];
  try {
    if (committed.releaseCreated) released.push(...(await releaseUnderShare(lc, committed.accountId, sourcesOf(created))));
    // A strict caller's created jobs name their sources even when nothing was released: a creation whose job is
    // held needs Redis as much as one released at once (its release comes from a worker), so it answers 503 alike.
    const checked = options.strict ? sourcesOf(created) : [];
    await enqueueReleased(lc, committed.accountId, released, checked);
  } catch (error) {
    if (options.strict) throw error;
    untold.push('released');
  }
  const deliveries = committed.webhookDeliveryIds ?? [];
  if (deliveries.length > 0) {
    if (!lc.webhooks) untold.push('webhooks');
    else {
      await answerWithin(ANNOUNCE_WITHIN_MS, lc.webhooks.enqueue(deliveries, 0, committed.accountId), 'Redis').catch((error: Error) => {
        untold.push('webhooks');
        logger.warn('webhook deliveries not enqueued; the outbox sweep will', { count: deliveries.length, error: error.message });
      });
    }
  }
  // Held: a worker's idle slot beyond its reserve may borrow it now rather than at its next look (decision 020);
  // a nudge lost with Redis only leaves it to that look, so nobody waits for it.
  const releasedIds = new Set(released.map((job) => job.jobId));
  for (const source of sourcesOf(created.filter((job) => !releasedIds.has(job.jobId)))) {
    lc.events.publishHeld(source).catch(() => undefined);
  }
  for (const job of created) metrics.jobsCreated.inc({ source: job.source });
  if (committed.batch) metrics.batchesCreated.inc();
  if (committed.monitorRun) metrics.monitorRuns.inc(committed.monitorRun);
  return untold;
}

const sourcesOf = (jobs: readonly JobOfSource[]): Source[] => [...new Set(jobs.map((job) => job.source))];

/**
 * Releases the account's held jobs of each source into the room under its share; with no share (0), a release
 * takes at most 100 at a time (release_held_jobs.sql), so it goes on until none is left.
 */
async function releaseUnderShare(lc: Lifecycle, accountId: string, sources: readonly Source[]): Promise<JobOfSource[]> {
  const released: JobOfSource[] = [];
  for (const source of sources) {
    for (;;) {
      const ids = await markReleased(lc.db, accountId, source, lc.share);
      released.push(...ids.map((jobId) => ({ jobId, source })));
      if (lc.share > 0 || ids.length < 100) break;
    }
  }
  return released;
}

/**
 * Puts released jobs in their queues, source by source, bounded in time: a released job without an entry is not
 * lost (the lost-job sweep enqueues it once it has been still for LOST_JOB_AFTER_MS), so a failure is logged and
 * thrown for the caller to count or withdraw, never retried here.
 */
async function enqueueReleased(
  lc: Lifecycle,
  accountId: string,
  jobs: readonly JobOfSource[],
  alsoChecked: readonly Source[] = [],
): Promise<void> {
  const bySource = new Map<Source, string[]>(alsoChecked.map((source) => [source, []]));
  for (const { jobId, source } of jobs) bySource.set(source, [...(bySource.get(source) ?? []), jobId]);
  for (const [source, jobIds] of bySource) {
    try {
      await answerWithin(ANNOUNCE_WITHIN_MS, lc.queue.enqueueReleased(source, accountId, jobIds), 'Redis');
    } catch (error) {
      logger.warn('released jobs not enqueued; the lost-job sweep will', {
        accountId,
        source,
        count: jobIds.length,
        error: (error as Error).message,
      });
      throw error;
    }
  }
}

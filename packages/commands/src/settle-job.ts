import {
  releaseHeldJobs as releaseInDatabase,
  settleJob as settleInDatabase,
  type Database,
  type FairRelease,
  type Settlement,
  type SettlementBasis,
} from '@leadgen/db';
import type { JobOutcome, Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { answerWithin, observeSettlement } from '@leadgen/ops';
import type { JobEventPublisher, JobProducer, WebhookProducer } from '@leadgen/queue';

/** What a settlement is announced through; each process passes what it has. */
export interface SettlementDependencies {
  db: Database;
  /** terminal and cancel events: waiting API requests, and the worker holding a cancelled job */
  events: JobEventPublisher;
  /** where a cancelled job's waiting queue entry is removed (the API and the admin CLI; a worker holds its own entry) */
  queue?: Pick<JobProducer, 'removeWaiting'>;
  /** where the deliveries of the job's webhook event are enqueued (decision 016); without it the outbox sweep sends them */
  webhooks?: Pick<WebhookProducer, 'enqueue'>;
  /**
   * Fair queues (decision 020): the cap, and where the account's held jobs the settlement releases are
   * enqueued. Without it none is released here; the worker's periodic sweep releases them.
   */
  release?: HeldJobRelease;
}

/** What a process needs to release held jobs and put them in their queue (decision 020). */
export interface HeldJobRelease {
  fairness: FairRelease;
  queue: Pick<JobProducer, 'enqueueReleased'>;
}

/** What Redis did not take: PostgreSQL has the settlement either way, and each has its fallback (below). */
export type Untold = 'fleet' | 'webhooks' | 'released';

export interface SettledJob {
  /** null: no such job */
  settlement: Settlement | null;
  untold: Untold[];
}

// A Redis that is up but does not answer must not hold a settlement's caller (a worker slot, a DELETE, the CLI).
const ANNOUNCE_WITHIN_MS = 3000;

/**
 * The one settlement pipeline, for every way a job ends (the worker's finish, the owner's cancel, the
 * operator's cancel): settle in PostgreSQL (the terminal status, the billing and the webhook outbox in one
 * statement), then observe it in the metrics, tell the fleet and the waiting requests, and enqueue the
 * webhook deliveries. A job that was terminal already is returned as it is and announced by nobody again.
 * Nothing after the settlement can undo it: if Redis does not take a message, the job still stops at its
 * worker's next page commit, a waiting request answers from PostgreSQL at its timeout, and the outbox sweep
 * sends the deliveries; what was not told is returned so the caller can say so.
 */
export async function settleJob(
  deps: SettlementDependencies,
  jobId: string,
  outcome: JobOutcome,
  basis?: SettlementBasis,
): Promise<SettledJob> {
  const settlement = await settleInDatabase(deps.db, jobId, outcome, basis, deps.release?.fairness);
  if (!settlement?.settled) return { settlement, untold: [] };
  const { job } = settlement;
  observeSettlement(job);
  logger.info(outcome.kind === 'cancelled' ? 'job cancelled' : 'job finished', {
    jobId,
    status: job.status,
    deliveredCount: job.deliveredCount,
    requestedCount: job.requestedCount,
    stopReason: job.stopReason,
    creditsCharged: job.creditsCharged,
  });

  const untold: Untold[] = [];
  const fleet = [deps.events.publishTerminal(jobId)];
  if (outcome.kind === 'cancelled') {
    fleet.push(deps.events.publishCancel(jobId));
    if (deps.queue) fleet.push(deps.queue.removeWaiting(job.source, jobId).then(() => undefined));
  }
  const told = await Promise.allSettled(fleet.map((step) => answerWithin(ANNOUNCE_WITHIN_MS, step, 'Redis')));
  const failed = told.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    untold.push('fleet');
    logger.warn('settlement not announced to the fleet', { jobId, error: String((failed.reason as Error)?.message ?? failed.reason) });
  }
  if (settlement.webhookDeliveryIds.length > 0) {
    if (!deps.webhooks) untold.push('webhooks');
    else {
      await answerWithin(ANNOUNCE_WITHIN_MS, deps.webhooks.enqueue(settlement.webhookDeliveryIds), 'Redis').catch((error: Error) => {
        untold.push('webhooks');
        logger.warn('webhook deliveries not enqueued; the outbox sweep will', {
          jobId,
          count: settlement.webhookDeliveryIds.length,
          error: error.message,
        });
      });
    }
  }
  if (settlement.releasedJobIds.length > 0 && deps.release) {
    // Released in PostgreSQL already: if Redis does not take them, the lost-job sweep enqueues them.
    await enqueueReleased(deps.release, job.source, job.accountId, settlement.releasedJobIds).catch(() => untold.push('released'));
  }
  return { settlement, untold };
}

/**
 * Puts jobs PostgreSQL has released (decision 020) in their queue, bounded in time: a released job without an
 * entry is not lost (the lost-job sweep enqueues it once it has been still for LOST_JOB_AFTER_MS), so a failure
 * is logged and thrown for the caller to count, never retried here.
 */
export async function enqueueReleased(
  release: HeldJobRelease,
  source: Source,
  accountId: string,
  jobIds: readonly string[],
): Promise<void> {
  if (jobIds.length === 0) return;
  try {
    await answerWithin(ANNOUNCE_WITHIN_MS, release.queue.enqueueReleased(source, accountId, jobIds), 'Redis');
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

/**
 * Releases the account's held jobs of the source that fit under its cap now and enqueues them: what the
 * worker's periodic sweep runs for each account with held jobs, and what a producer of held jobs (a batch's
 * children) runs after committing them. Returns the released ids.
 */
export async function releaseHeldJobs(
  deps: { db: Database; release: HeldJobRelease },
  accountId: string,
  source: Source,
): Promise<string[]> {
  const released = await releaseInDatabase(deps.db, accountId, source, deps.release.fairness);
  await enqueueReleased(deps.release, source, accountId, released);
  return released;
}

/**
 * Releases a new batch's held children (decision 021): for each of their sources, what fits under the account's
 * cap now (each child's settlement releases the next); without a cap (0), a release takes at most 100 at a time,
 * so it goes on until none is left. POST /leads/batches and a batch monitor's run both call it after the commit.
 */
export async function releaseBatchChildren(
  deps: { db: Database; release: HeldJobRelease },
  accountId: string,
  sources: Iterable<Source>,
): Promise<void> {
  for (const source of new Set(sources)) {
    for (;;) {
      const released = await releaseHeldJobs(deps, accountId, source);
      if (deps.release.fairness.openJobsPerAccount > 0 || released.length < 100) break;
    }
  }
}

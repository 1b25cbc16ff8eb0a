import { settleJob as settleInDatabase, type Database, type Settlement, type SettlementBasis } from '@leadgen/db';
import type { JobOutcome } from '@leadgen/domain';
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
}

/** What Redis did not take: PostgreSQL has the settlement either way, and each has its fallback (below). */
export type Untold = 'fleet' | 'webhooks';

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
  const settlement = await settleInDatabase(deps.db, jobId, outcome, basis);
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
  return { settlement, untold };
}

import { recordSettlement, type Settlement, type SettlementBasis } from '@leadgen/db';
import type { JobOutcome } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { answerWithin, observeSettlement } from '@leadgen/ops';
import { afterCommit, ANNOUNCE_WITHIN_MS, type Untold } from './after-commit';
import type { Lifecycle } from './lifecycle';

export interface SettleOptions {
  /** false: the job's place in its account's share goes to none of its held jobs (an account being deleted: they are cancelled next) */
  releaseNext?: boolean;
}

export interface SettledJob {
  /** null: no such job */
  settlement: Settlement | null;
  untold: Untold[];
}

/**
 * The one settlement, for every way a job ends (the worker's finish, the owner's cancel, the operator's
 * cancel): settle in PostgreSQL (the terminal status, the billing, the webhook outbox and the release of the
 * account's next held jobs in one statement), then observe it in the metrics, tell the fleet and the waiting
 * requests, and hand the rest to the after-commit step (the released jobs, the webhook deliveries). A job that
 * was terminal already is returned as it is and announced by nobody again. Nothing after the settlement can
 * undo it: if Redis does not take a message, the job still stops at its worker's next page commit, a waiting
 * request answers from PostgreSQL at its timeout, and the sweeps do the rest; what was not told is returned so
 * the caller can say so.
 */
export async function settleJob(
  lc: Lifecycle,
  jobId: string,
  outcome: JobOutcome,
  basis?: SettlementBasis,
  options: SettleOptions = {},
): Promise<SettledJob> {
  const settlement = await recordSettlement(lc.db, jobId, outcome, basis, options.releaseNext === false ? undefined : lc.share);
  if (!settlement?.settled) return { settlement, untold: [] };
  return announceSettlement(lc, settlement, outcome);
}

/**
 * What follows a settlement PostgreSQL has just recorded, by settleJob or in the same transaction as the job's last
 * commit (the worker's commit_slice, decision 037): the metrics, the fleet and the waiting requests told, the
 * after-commit step. Called once per settlement, by whoever recorded it.
 */
export async function announceSettlement(lc: Lifecycle, settlement: Settlement, outcome: JobOutcome): Promise<SettledJob> {
  const { job } = settlement;
  const jobId = job.id;
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
  const fleet = [lc.events.publishTerminal(jobId)];
  if (outcome.kind === 'cancelled') {
    fleet.push(lc.events.publishCancel(jobId));
    if (lc.queue.removeWaiting) fleet.push(lc.queue.removeWaiting(job.source, job.accountId, jobId).then(() => undefined));
  }
  const told = await Promise.allSettled(fleet.map((step) => answerWithin(ANNOUNCE_WITHIN_MS, step, 'Redis')));
  const failed = told.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    untold.push('fleet');
    logger.warn('settlement not announced to the fleet', { jobId, error: String((failed.reason as Error)?.message ?? failed.reason) });
  }
  untold.push(
    ...(await afterCommit(lc, {
      accountId: job.accountId,
      released: settlement.releasedJobIds.map((id) => ({ jobId: id, source: job.source })),
      webhookDeliveryIds: settlement.webhookDeliveryIds,
    })),
  );
  return { settlement, untold };
}

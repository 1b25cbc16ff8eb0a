import { findAccountJob, settleJob } from '@leadgen/db';
import { errors, isTerminal, type Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { observeSettlement } from '@leadgen/ops';
import type { ApiDependencies } from '../dependencies';
import { getAccountJob, type JobAnswer } from './read-job';

/**
 * DELETE /api/v1/leads/jobs/{jobId}. The cancel takes effect in PostgreSQL before the answer is
 * sent (the job is settled CANCELLED with what it had delivered); the queue and the fleet are
 * told afterwards. If those messages are lost, the page-commit guard still freezes the job.
 */
export async function cancelJob(deps: ApiDependencies, accountId: string, jobId: string): Promise<JobAnswer> {
  const job = await findAccountJob(deps.db, accountId, jobId);
  if (!job) throw errors.jobNotFound();
  if (!isTerminal(job.status)) {
    const settlement = await settleJob(deps.db, jobId, { kind: 'cancelled' }, job);
    if (settlement?.settled) {
      logger.info('job cancelled', { jobId, deliveredCount: settlement.job.deliveredCount });
      observeSettlement(settlement.job);
      await tellFleet(deps, jobId, settlement.job.source);
      // The job's webhook event was recorded with the settlement; if Redis refuses, the outbox sweep sends it.
      await deps.webhooks.enqueue(settlement.webhookDeliveryIds).catch((error: Error) => logger.warn('webhook deliveries not enqueued', { jobId, error: error.message }));
    }
  }
  const current = await getAccountJob(deps, accountId, jobId);
  if (current.status !== 'CANCELLED') throw errors.jobNotCancellable(current.status);
  return current;
}

async function tellFleet(deps: ApiDependencies, jobId: string, source: Source): Promise<void> {
  const steps = [
    deps.producer.removeWaiting(source, jobId),
    deps.producer.publishCancel(jobId),
    deps.producer.publishTerminal(jobId),
  ];
  const results = await Promise.allSettled(steps);
  for (const result of results) {
    if (result.status === 'rejected') logger.warn('cancel not propagated to the fleet', { jobId, error: String(result.reason) });
  }
}

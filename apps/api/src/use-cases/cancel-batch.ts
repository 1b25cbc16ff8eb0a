import { cancelJob } from '@leadgen/commands';
import { findBatch, requestBatchCancel, type BatchRecord } from '@leadgen/db';
import { errors } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { ApiDependencies } from '../dependencies';

// Children settled at once: each is one settlement statement and a few Redis commands; a few in flight keep a
// 1,000-child cancel to seconds without taking every pooled connection.
const CANCEL_CONCURRENCY = 8;

/**
 * DELETE /api/v1/leads/batches/{batchId}: the batch is marked cancelled (no child starts after that:
 * start_job refuses them), then every open child is cancelled through the one cancel command, as its own
 * DELETE would (it keeps and is billed for what it delivered). The last child's settlement settles the batch
 * CANCELLED. Cancelling a cancelled batch answers the same; a batch that ended otherwise is 409.
 */
export async function cancelBatch(deps: ApiDependencies, accountId: string, batchId: string): Promise<BatchRecord> {
  const requested = await requestBatchCancel(deps.db, batchId, accountId);
  if (!requested) throw errors.batchNotFound();
  if (requested.status !== 'running' && requested.status !== 'CANCELLED') throw errors.batchNotCancellable(requested.status);
  const queue = [...requested.openChildren];
  // A cancelled child frees its place in the share for the account's next held job (decision 020); the held
  // children come first in openChildren, so none of this batch's is released only to be cancelled.
  await Promise.all(
    Array.from({ length: Math.min(CANCEL_CONCURRENCY, queue.length) }, async () => {
      for (let child = queue.shift(); child; child = queue.shift()) await cancelJob(deps.lifecycle, child.id, accountId);
    }),
  );
  if (requested.openChildren.length > 0) logger.info('batch cancelled', { batchId, children: requested.openChildren.length });
  const batch = await findBatch(deps.db, batchId, accountId);
  if (!batch) throw errors.batchNotFound();
  return batch;
}

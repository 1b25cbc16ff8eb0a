import { batchBody, type BatchBody } from '@leadgen/domain';
import type { BatchRecord } from '@leadgen/db';

// How a batch is shown to its owner: the batch body (docs/api.md, "Batches"), a listing's item, and when to poll again.

export function presentBatch(batch: BatchRecord, publicBaseUrl: string | null): BatchBody {
  return batchBody(batch, publicBaseUrl);
}

/** `Retry-After` while the batch runs: a batch is long by nature, so pollers are asked to wait a little longer than for a job. */
export function batchPollHeaders(batch: BatchRecord): Record<string, string> {
  return batch.status === 'running' ? { 'Retry-After': '5' } : {};
}

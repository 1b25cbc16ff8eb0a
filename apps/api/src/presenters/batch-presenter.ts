import { batchBody, type BatchBody } from '@leadgen/domain';
import type { BatchRecord } from '@leadgen/db';

// How a batch is shown to its owner: the batch body (docs/api.md, "Batches"), a listing's item, and when to poll again.

/** An area search's part of the body (decision 039): `areaSearch`, read beside the batch (use-cases/area-searches.ts). */
export type AreaSearchFacts = Record<string, unknown>;

export function presentBatch(
  batch: BatchRecord,
  publicBaseUrl: string | null,
  areaSearch: AreaSearchFacts | null = null,
): BatchBody & { areaSearch?: AreaSearchFacts } {
  const body = batchBody(batch, publicBaseUrl);
  return areaSearch ? { ...body, areaSearch } : body;
}

/** `Retry-After` while the batch runs: a batch is long by nature, so pollers are asked to wait a little longer than for a job. */
export function batchPollHeaders(batch: BatchRecord): Record<string, string> {
  return batch.status === 'running' ? { 'Retry-After': '5' } : {};
}

import { createBatch, requestFingerprint } from '@leadgen/commands';
import { findBatch, type BatchRecord, type Database } from '@leadgen/db';
import { errors, type GenerationRequest, type ResolvedArea } from '@leadgen/domain';
import { metrics } from '@leadgen/ops';
import type { ApiDependencies } from '../dependencies';

/** A batch as submitted: its requests normalised, the batch-wide excludeDelivered written into each. */
export interface BatchRequest {
  requests: GenerationRequest[];
  excludeDelivered: boolean;
  maxCredits: number | null;
  webhookUrl: string | null;
  name: string | null;
}

export interface SubmitBatchInput {
  accountId: string;
  idempotencyKey: string;
  batch: BatchRequest;
  /** an area search (decision 039): its area and quote; `batch.requests` are its tiles */
  area?: { area: ResolvedArea; quoteId: string | null; maxResults?: number | null };
  /** what the key binds, when it is not the batch itself (an area batch binds the body as sent, before a place is resolved) */
  fingerprint?: string;
}

export interface SubmitBatchResult {
  batch: BatchRecord;
  replayed: boolean;
}

/**
 * POST /api/v1/leads/batches: the one batch creation (@leadgen/commands createBatch: its children held, released
 * under the share, withdrawn with a 503 if the queue refuses), answered with the batch as a GET gives it. A reused
 * key is 422, an account that cannot cover the first child 402.
 */
export async function submitBatch(deps: Pick<ApiDependencies, 'lifecycle'>, input: SubmitBatchInput): Promise<SubmitBatchResult> {
  const fingerprint = input.fingerprint ?? requestFingerprint(input.batch);
  const { db } = deps.lifecycle;
  const creation = await createBatch(deps.lifecycle, {
    accountId: input.accountId,
    idempotencyKey: input.idempotencyKey,
    fingerprint,
    name: input.batch.name,
    excludeDelivered: input.batch.excludeDelivered,
    maxCredits: input.batch.maxCredits,
    webhookUrl: input.batch.webhookUrl,
    requests: input.batch.requests,
    ...(input.area ? { area: input.area } : {}),
  });
  if (creation.kind === 'insufficient_credits') throw errors.insufficientCredits(creation.required, creation.available);
  if (creation.kind === 'bound') {
    if (creation.fingerprint !== fingerprint) throw errors.idempotencyKeyReused();
    metrics.idempotentReplays.inc();
    return { batch: await mustFind(db, creation.batchId, input.accountId), replayed: true };
  }
  return { batch: await mustFind(db, creation.batchId, input.accountId), replayed: false };
}

async function mustFind(db: Database, batchId: string, accountId: string): Promise<BatchRecord> {
  const batch = await findBatch(db, batchId, accountId);
  if (!batch) throw new Error(`batch ${batchId} vanished after creation`);
  return batch;
}

import { insertBatch, withdrawBatch, type BatchInsertion } from '@leadgen/db';
import { errors, newId, newWebhookSecret, reservationFor, type GenerationRequest } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { afterCommit } from './after-commit';
import type { Lifecycle } from './lifecycle';

export interface BatchToCreate {
  accountId: string;
  idempotencyKey: string;
  name: string | null;
  excludeDelivered: boolean;
  maxCredits: number | null;
  webhookUrl: string | null;
  requests: GenerationRequest[];
  /** what the key binds (requestFingerprint of the request body) */
  fingerprint: string;
}

export type BatchCreation = BatchInsertion;

/**
 * Creates a batch (POST /leads/batches): binds the key, checks that the account can cover the first child,
 * records the batch and every child (ordinary jobs tagged with the batch, held) in one statement, then the
 * after-commit step releases into the queues what fits under the account's share per source (decision 020):
 * each child's settlement releases the next, so a 1,000-child batch never holds more queue places than any
 * other account's backlog. Nothing is reserved here: each child reserves its worst case as it starts, against
 * maxCredits and the account (start_job). A replay, a reused key or a short account writes nothing; a Redis
 * outage (503) withdraws the batch and its children.
 */
export async function createBatch(lc: Lifecycle, input: BatchToCreate): Promise<BatchCreation> {
  const batchId = newId.batch();
  const children = input.requests.map((request) => ({
    jobId: newId.job(),
    resultSetId: newId.resultSet(),
    request,
    reserve: reservationFor(request.source, request.maxResults),
  }));
  const anyWebhook = input.webhookUrl !== null || input.requests.some((request) => request.webhookUrl);
  const creation = await insertBatch(lc.db, {
    accountId: input.accountId,
    idempotencyKey: input.idempotencyKey,
    fingerprint: input.fingerprint,
    idempotencyTtlHours: lc.idempotencyTtlHours,
    batchId,
    name: input.name,
    excludeDelivered: input.excludeDelivered,
    maxCredits: input.maxCredits,
    webhookUrl: input.webhookUrl,
    children,
    webhookSecretCandidate: anyWebhook ? newWebhookSecret() : undefined,
  });
  if (creation.kind !== 'created') return creation;
  const created = children.map((child) => ({ jobId: child.jobId, source: child.request.source }));
  try {
    await afterCommit(lc, { accountId: input.accountId, created, releaseCreated: true, batch: true }, { strict: true });
  } catch (error) {
    await withdrawBatch(lc.db, batchId);
    logger.warn('batch enqueue failed; batch withdrawn', { batchId, error: (error as Error).message });
    throw errors.serviceUnavailable('The job queue is unavailable; no batch was created and no credits were reserved');
  }
  logger.info('batch created', { batchId, children: children.length, maxCredits: input.maxCredits });
  return creation;
}

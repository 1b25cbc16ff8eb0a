import {
  inTransaction,
  insertBatch,
  insertBatchWithin,
  recordAreaBatch,
  withdrawBatch,
  type BatchInsertion,
  type NewBatch,
} from '@leadgen/db';
import { errors, newId, newWebhookSecret, reservationFor, type GenerationRequest, type ResolvedArea } from '@leadgen/domain';
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
  /** an area search (decision 039): its area, and the quote it came from; each of `requests` has its `tile` */
  area?: { area: ResolvedArea; quoteId: string | null; maxResults?: number | null };
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
  const batch: NewBatch = {
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
  };
  const creation = input.area ? await insertAreaBatch(lc, batch, input.area) : await insertBatch(lc.db, batch);
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

/** An area batch: create_batch and the area with its first tiles in one transaction (a batch never lacks its tiles). */
async function insertAreaBatch(lc: Lifecycle, batch: NewBatch, area: NonNullable<BatchToCreate['area']>): Promise<BatchInsertion> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const creation = await inTransaction(lc.db, async (q) => {
      const inserted = await insertBatchWithin(q, lc.db, batch);
      if (inserted?.kind === 'created') {
        const tiles = batch.children.map((child) => ({
          path: child.request.tile!.path,
          rect: child.request.tile!.rect,
          jobId: child.jobId,
        }));
        await recordAreaBatch(q, batch.batchId, area.area, area.quoteId, tiles, area.maxResults ?? null);
      }
      return inserted;
    });
    if (creation) return creation;
  }
  throw new Error('idempotency key could neither be bound nor read after 3 attempts');
}

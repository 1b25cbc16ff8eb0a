import { releaseBatchChildren } from '@leadgen/commands';
import { createBatch as createInDatabase, findBatch, type BatchRecord } from '@leadgen/db';
import { errors, newId, newWebhookSecret, reservationFor, type GenerationRequest } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import type { JobProducer } from '@leadgen/queue';
import type { Config } from '@leadgen/config';
import type { Database } from '@leadgen/db';
import type { BatchRequest } from '../routes/leads/batches-schema';
import { requestFingerprint } from './generate-leads';

/** What creating a batch needs: the database, the queue, the configuration. A monitor's run passes the same. */
export interface BatchCreationDependencies {
  config: Pick<Config, 'api' | 'queue'>;
  db: Database;
  producer: Pick<JobProducer, 'enqueueReleased'>;
}

export interface CreateBatchInput {
  accountId: string;
  idempotencyKey: string;
  batch: BatchRequest;
}

export interface CreateBatchResult {
  batch: BatchRecord;
  replayed: boolean;
}

/**
 * POST /api/v1/leads/batches, and any caller that runs a batch (one function, so a monitor's run is the
 * same batch): binds the key, checks that the account can cover the first child, records the batch and
 * every child (ordinary jobs tagged with the batch, held) in one statement, then releases into the queues
 * what fits under the account's cap of open jobs per source (decision 020): each child's settlement releases
 * the next, so a 1,000-child batch never holds more queue slots than any other account's backlog. Nothing is
 * reserved here: each child reserves its worst case as it starts, against maxCredits and the account
 * (start_job). A replay, a reused key or a short account (402) writes nothing; a Redis outage (503)
 * withdraws the batch and its children.
 */
export async function createBatch(deps: BatchCreationDependencies, input: CreateBatchInput): Promise<CreateBatchResult> {
  const { db, producer, config } = deps;
  const batchId = newId.batch();
  const fingerprint = requestFingerprint(input.batch as unknown as GenerationRequest);
  const children = input.batch.requests.map((request) => ({
    jobId: newId.job(),
    resultSetId: newId.resultSet(),
    request,
    reserve: reservationFor(request.source, request.maxResults),
  }));
  const anyWebhook = input.batch.webhookUrl !== null || input.batch.requests.some((request) => request.webhookUrl);
  const creation = await createInDatabase(
    db,
    {
      accountId: input.accountId,
      idempotencyKey: input.idempotencyKey,
      fingerprint,
      idempotencyTtlHours: config.api.idempotencyTtlHours,
      batchId,
      name: input.batch.name,
      excludeDelivered: input.batch.excludeDelivered,
      maxCredits: input.batch.maxCredits,
      webhookUrl: input.batch.webhookUrl,
      children,
      webhookSecretCandidate: anyWebhook ? newWebhookSecret() : undefined,
    },
    async () => {
      const release = { fairness: { openJobsPerAccount: config.queue.openJobsPerAccount }, queue: producer };
      try {
        await releaseBatchChildren(
          { db, release },
          input.accountId,
          children.map((child) => child.request.source),
        );
      } catch (error) {
        logger.warn('batch enqueue failed; batch withdrawn', { batchId, error: (error as Error).message });
        throw errors.serviceUnavailable('The job queue is unavailable; no batch was created and no credits were reserved');
      }
    },
  );
  if (creation.kind === 'insufficient_credits') throw errors.insufficientCredits(creation.required, creation.available);
  if (creation.kind === 'bound') {
    if (creation.fingerprint !== fingerprint) throw errors.idempotencyKeyReused();
    metrics.idempotentReplays.inc();
    return { batch: await mustFind(db, creation.batchId, input.accountId), replayed: true };
  }
  logger.info('batch created', { batchId, children: children.length, maxCredits: input.batch.maxCredits });
  for (const child of children) metrics.jobsCreated.inc({ source: child.request.source });
  metrics.batchesCreated.inc();
  return { batch: await mustFind(db, batchId, input.accountId), replayed: false };
}

async function mustFind(db: Database, batchId: string, accountId: string): Promise<BatchRecord> {
  const batch = await findBatch(db, batchId, accountId);
  if (!batch) throw new Error(`batch ${batchId} vanished after creation`);
  return batch;
}

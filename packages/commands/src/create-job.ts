import { createHash } from 'node:crypto';
import { insertJob, withdrawJob, type JobInsertion } from '@leadgen/db';
import { errors, newId, newWebhookSecret, reservationFor, type GenerationRequest } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { afterCommit } from './after-commit';
import type { Lifecycle } from './lifecycle';

/** Key order must not make two equal requests look different. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What an idempotency key binds besides the job: the same key with another body is refused. */
export function requestFingerprint(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

export interface JobToCreate {
  accountId: string;
  idempotencyKey: string;
  request: GenerationRequest;
  /** chosen by the caller when it must know it first (a waiting request registers its waiter before the enqueue) */
  jobId?: string;
}

export type JobCreation =
  | { kind: 'created'; jobId: string; held: boolean }
  /** the key is bound to a live job already: a replay when `fingerprint` matches (requestFingerprint), else a reuse */
  | Extract<JobInsertion, { kind: 'bound' }>
  | { kind: 'insufficient_credits'; required: number; available: number };

/**
 * Creates one job (POST /leads/generate): binds the key, reserves the worst case and records the job in one
 * statement, released into its queue unless its account is at its share for the source (then it is held and
 * released as the account's earlier jobs end: decision 020). Then the after-commit step, strictly: a queue that
 * refuses what was released withdraws the job, its reservation and its key (503). A replay, a reused key or a
 * short account writes nothing and is returned as such.
 */
export async function createJob(lc: Lifecycle, input: JobToCreate): Promise<JobCreation> {
  const jobId = input.jobId ?? newId.job();
  const { source, maxResults, webhookUrl } = input.request;
  const reserved = reservationFor(source, maxResults);
  const creation = await insertJob(lc.db, {
    accountId: input.accountId,
    idempotencyKey: input.idempotencyKey,
    fingerprint: requestFingerprint(input.request),
    idempotencyTtlHours: lc.idempotencyTtlHours,
    jobId,
    resultSetId: newId.resultSet(),
    request: input.request,
    creditsReserved: reserved,
    // Becomes the account's default webhook secret if this is its first job with a webhookUrl.
    webhookSecretCandidate: webhookUrl ? newWebhookSecret() : undefined,
    share: lc.share,
  });
  if (creation.kind === 'insufficient_credits') return { ...creation, required: reserved };
  if (creation.kind === 'bound') return creation;
  try {
    await afterCommit(
      lc,
      { accountId: input.accountId, created: [{ jobId, source }], released: creation.released.map((id) => ({ jobId: id, source })) },
      { strict: true },
    );
  } catch (error) {
    // Held or not, this job is withdrawn (503, as with Redis away); older jobs released with it stay released
    // without an entry, and the lost-job sweep enqueues them.
    await withdrawJob(lc.db, jobId);
    logger.warn('enqueue failed; job withdrawn', { jobId, released: creation.released, error: (error as Error).message });
    throw errors.serviceUnavailable('The job queue is unavailable; no job was created and no credits were reserved');
  }
  logger.info('job created', { jobId, source, maxResults, held: creation.held });
  return { kind: 'created', jobId, held: creation.held };
}

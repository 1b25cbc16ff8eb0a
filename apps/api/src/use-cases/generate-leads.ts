import { createHash } from 'node:crypto';
import { createJob } from '@leadgen/db';
import { errors, isTerminal, newId, newWebhookSecret, reservationFor, type GenerationRequest } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import type { ApiDependencies } from '../dependencies';
import { readJobAnswer, type JobAnswer } from './read-job';

export interface GenerateLeadsInput {
  accountId: string;
  idempotencyKey: string;
  request: GenerationRequest;
  waitMs: number;
  signal: AbortSignal;
}

export interface GenerateLeadsResult extends JobAnswer {
  replayed: boolean;
}

/** Key order must not make two equal requests look different. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestFingerprint(request: GenerationRequest): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

/**
 * POST /api/v1/leads/generate. Binds the key, reserves the worst case and records the job in one
 * statement, then enqueues it unless its account is at its cap of open jobs for the source (then it is held
 * in PostgreSQL and released as the account's earlier jobs end: decision 020): a replay, a reused key or a
 * short account (402) writes nothing, and a Redis outage (503) withdraws the job, its reservation and its
 * key. Then waits briefly for the terminal status, held or not.
 */
export async function generateLeads(deps: ApiDependencies, input: GenerateLeadsInput): Promise<GenerateLeadsResult> {
  const { db, producer, config, waiters } = deps;
  const jobId = newId.job();
  const fingerprint = requestFingerprint(input.request);
  const creditsReserved = reservationFor(input.request.source, input.request.maxResults);
  // Registered before the enqueue, so no announcement can come before it: no read to close that gap.
  const waiter = waiters.expect(jobId);
  try {
    const creation = await createJob(
      db,
      {
        accountId: input.accountId,
        idempotencyKey: input.idempotencyKey,
        fingerprint,
        idempotencyTtlHours: config.api.idempotencyTtlHours,
        jobId,
        resultSetId: newId.resultSet(),
        request: input.request,
        creditsReserved,
        // Becomes the account's default webhook secret if this is its first job with a webhookUrl.
        webhookSecretCandidate: input.request.webhookUrl ? newWebhookSecret() : undefined,
        // Fair queues (decision 020): released at once while the account is under its cap for the source, held otherwise.
        fairness: { openJobsPerAccount: config.queue.openJobsPerAccount },
      },
      async (released) => {
        try {
          await producer.enqueueReleased(input.request.source, input.accountId, released);
        } catch (error) {
          // Held or not, this job is withdrawn (503, as with Redis away); older jobs released with it stay released
          // without an entry, and the lost-job sweep enqueues them.
          logger.warn('enqueue failed; job withdrawn', { jobId, released, error: (error as Error).message });
          throw errors.serviceUnavailable('The job queue is unavailable; no job was created and no credits were reserved');
        }
      },
    );

    if (creation.kind === 'insufficient_credits') {
      throw errors.insufficientCredits(creditsReserved, creation.available);
    }
    if (creation.kind === 'bound') {
      if (creation.fingerprint !== fingerprint) throw errors.idempotencyKeyReused();
      metrics.idempotentReplays.inc();
      return { ...(await replay(deps, creation.jobId, input)), replayed: true };
    }
    logger.info('job created', { jobId, source: input.request.source, maxResults: input.request.maxResults, held: creation.held });
    metrics.jobsCreated.inc({ source: input.request.source });
    // Held: a worker's idle slot beyond its reserve may borrow it now rather than at its next look (decision 020);
    // a nudge lost with Redis only leaves it to that look.
    if (creation.held) producer.publishHeld(input.request.source).catch(() => undefined);
    await waiter.until(input.waitMs, input.signal);
    return { ...(await answer(deps, jobId)), replayed: false };
  } finally {
    waiter.dispose();
  }
}

/** The replayed job's current state, waited for like the first call would be. */
async function replay(deps: ApiDependencies, jobId: string, input: GenerateLeadsInput): Promise<JobAnswer> {
  const waiter = deps.waiters.expect(jobId);
  try {
    const now = await answer(deps, jobId);
    if (isTerminal(now.status) || input.waitMs <= 0) return now;
    await waiter.until(input.waitMs, input.signal);
    return await answer(deps, jobId);
  } finally {
    waiter.dispose();
  }
}

async function answer(deps: ApiDependencies, jobId: string): Promise<JobAnswer> {
  const current = await readJobAnswer(deps, jobId, null);
  if (!current) throw new Error(`job ${jobId} vanished after creation`);
  return current;
}

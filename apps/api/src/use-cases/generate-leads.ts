import { createHash } from 'node:crypto';
import {
  bindIdempotencyKey,
  creditSummary,
  findIdempotencyKey,
  insertJob,
  lockAccount,
  reserveCredits,
  transaction,
  type JobRecord,
} from '@leadgen/db';
import { errors, newId, reservationFor, type GenerationRequest } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { ApiDependencies } from '../dependencies';
import { readJobWithLeads, waitForTerminal, type JobWithLeads } from './read-job';

export interface GenerateLeadsInput {
  accountId: string;
  idempotencyKey: string;
  request: GenerationRequest;
  waitMs: number;
  signal: AbortSignal;
}

export interface GenerateLeadsResult extends JobWithLeads {
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
 * POST /api/v1/leads/generate. Under the account's lock: replay the key's job or refuse a reused
 * key, check and reserve credits, record the job, bind the key and enqueue — all or nothing, so a
 * refusal (402) or a Redis outage (503) leaves no job, no reservation and no bound key.
 * Then wait briefly for the terminal status.
 */
export async function generateLeads(deps: ApiDependencies, input: GenerateLeadsInput): Promise<GenerateLeadsResult> {
  const { db, producer, config } = deps;
  const fingerprint = requestFingerprint(input.request);
  const expiresAt = new Date(Date.now() + config.api.idempotencyTtlHours * 3600_000);

  const { jobId, replayed } = await transaction(db, async (tx) => {
    await lockAccount(tx, input.accountId);
    const existing = await findIdempotencyKey(tx, input.accountId, input.idempotencyKey);
    if (existing) {
      if (existing.fingerprint !== fingerprint) throw errors.idempotencyKeyReused();
      return { jobId: existing.jobId, replayed: true };
    }
    const required = reservationFor(input.request.source, input.request.maxResults);
    const { available } = await creditSummary(tx, input.accountId);
    if (available < required) throw errors.insufficientCredits(required, available);

    const job: JobRecord = await insertJob(tx, {
      id: newId.job(),
      accountId: input.accountId,
      resultSetId: newId.resultSet(),
      request: input.request,
      creditsReserved: required,
    });
    await reserveCredits(tx, input.accountId, job.id, required);
    await bindIdempotencyKey(tx, input.accountId, { key: input.idempotencyKey, fingerprint, jobId: job.id, expiresAt });
    try {
      // Inside the transaction on purpose: if Redis refuses, nothing above is committed.
      await producer.enqueue(job.source, { jobId: job.id, accountId: input.accountId });
    } catch (error) {
      logger.warn('enqueue failed; job rolled back', { jobId: job.id, error: (error as Error).message });
      throw errors.serviceUnavailable('The job queue is unavailable; no job was created and no credits were reserved');
    }
    return { jobId: job.id, replayed: false };
  });

  if (!replayed) logger.info('job created', { jobId, source: input.request.source, maxResults: input.request.maxResults });
  await waitForTerminal(deps, jobId, input.waitMs, input.signal);
  const current = await readJobWithLeads(db, jobId);
  if (!current) throw new Error(`job ${jobId} vanished after creation`);
  return { ...current, replayed };
}

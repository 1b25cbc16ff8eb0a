import { createJob, requestFingerprint } from '@leadgen/commands';
import { errors, isTerminal, newId, type GenerationRequest } from '@leadgen/domain';
import { metrics } from '@leadgen/ops';
import type { ApiDependencies } from '../dependencies';
import { readJobAnswer, type JobAnswer } from './read-job';

export interface GenerateLeadsInput {
  accountId: string;
  idempotencyKey: string;
  request: GenerationRequest;
  waitMs: number;
  signal: AbortSignal;
  /** the request's work is done and it only waits for the job: its in-flight place goes back (decision 050) */
  onWaiting?: () => void;
}

export interface GenerateLeadsResult extends JobAnswer {
  replayed: boolean;
}

/**
 * POST /api/v1/leads/generate: the one job creation (@leadgen/commands createJob: held or released, enqueued,
 * withdrawn with a 503 if the queue refuses), then a brief wait for the terminal status, held or not. A replay
 * waits as the first call would; a reused key is 422, a short account 402.
 */
export async function generateLeads(deps: ApiDependencies, input: GenerateLeadsInput): Promise<GenerateLeadsResult> {
  const jobId = newId.job();
  // Registered before the enqueue, so no announcement can come before it: no read to close that gap.
  const waiter = deps.waiters.expect(jobId);
  try {
    const creation = await createJob(deps.lifecycle, {
      accountId: input.accountId,
      idempotencyKey: input.idempotencyKey,
      request: input.request,
      jobId,
    });
    if (creation.kind === 'insufficient_credits') throw errors.insufficientCredits(creation.required, creation.available);
    if (creation.kind === 'bound') {
      if (creation.fingerprint !== requestFingerprint(input.request)) throw errors.idempotencyKeyReused();
      metrics.idempotentReplays.inc();
      return { ...(await replay(deps, creation.jobId, input)), replayed: true };
    }
    input.onWaiting?.();
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
    input.onWaiting?.();
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

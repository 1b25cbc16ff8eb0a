import { findAccountJob, findJob, listLeads, type Database, type JobRecord } from '@leadgen/db';
import { errors, isTerminal, type Lead } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';

export interface JobWithLeads {
  job: JobRecord;
  /** present exactly when the job is terminal */
  leads: Lead[] | null;
}

/** Leads are read only for a terminal job: until then the body carries none. */
async function withLeads(db: Database, job: JobRecord): Promise<JobWithLeads> {
  return { job, leads: isTerminal(job.status) ? await listLeads(db, job.id) : null };
}

export async function readJobWithLeads(db: Database, jobId: string): Promise<JobWithLeads | null> {
  const job = await findJob(db, jobId);
  return job ? withLeads(db, job) : null;
}

/** GET /api/v1/leads/jobs/{jobId}: the caller's job, or 404 as if it did not exist. */
export async function getAccountJob(db: Database, accountId: string, jobId: string): Promise<JobWithLeads> {
  const job = await findAccountJob(db, accountId, jobId);
  if (!job) throw errors.jobNotFound();
  return withLeads(db, job);
}

/** Waits (bounded) until the job is terminal; the answer is then read from PostgreSQL, never from the event. */
export async function waitForTerminal(deps: ApiDependencies, jobId: string, waitMs: number, signal: AbortSignal): Promise<void> {
  await deps.waiters.wait(
    jobId,
    waitMs,
    async () => {
      const job = await findJob(deps.db, jobId);
      return job === null || isTerminal(job.status);
    },
    signal,
  );
}

import { readJobView, type JobRecord } from '@leadgen/db';
import { errors, isTerminal, type JobStatus } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';
import { presentJobJson } from '../presenters/job-presenter';

/** What the routes answer with: the job body as JSON text, and the record when one was read. */
export interface JobAnswer {
  status: JobStatus;
  terminal: boolean;
  body: string;
  /** null when the terminal body came from memory */
  job: JobRecord | null;
}

/**
 * The job's answer: a terminal body from memory when this process built it before, else one
 * statement (job and leads) and, once terminal, the body kept for next time. `accountId` null
 * reads a job the caller already knows it owns (the request that created it).
 */
export async function readJobAnswer(deps: ApiDependencies, jobId: string, accountId: string | null): Promise<JobAnswer | null> {
  const remembered = await deps.terminalBodies.get(jobId, accountId);
  if (remembered) return { status: remembered.status, terminal: true, body: remembered.body, job: null };
  const epoch = deps.terminalBodies.epochBeforeRead();
  const view = await readJobView(deps.db, jobId, accountId);
  if (!view) return null;
  const { job, leadsJson } = view;
  const body = presentJobJson(job, leadsJson, deps.config.http.publicBaseUrl);
  if (isTerminal(job.status)) deps.terminalBodies.remember(job.id, { accountId: job.accountId, status: job.status, body }, epoch);
  return { status: job.status, terminal: isTerminal(job.status), body, job };
}

/** GET /api/v1/leads/jobs/{jobId}: the caller's job, or 404 as if it did not exist. */
export async function getAccountJob(deps: ApiDependencies, accountId: string, jobId: string): Promise<JobAnswer> {
  const answer = await readJobAnswer(deps, jobId, accountId);
  if (!answer) throw errors.jobNotFound();
  return answer;
}

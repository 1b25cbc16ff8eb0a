import type { Request, Response } from 'express';
import { ID_PATTERNS, errors } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { pollHeaders } from '../../presenters/job-presenter';
import { cancelOwnJob } from '../../use-cases/cancel-job';
import { getAccountJob, type JobAnswer } from '../../use-cases/read-job';

/** A malformed id cannot name a job: same 404 as an unknown one, without asking the database. */
function jobIdParam(req: Request): string {
  const jobId = String(req.params.jobId ?? '');
  if (!ID_PATTERNS.job.test(jobId)) throw errors.jobNotFound();
  return jobId;
}

function sendJob(res: Response, { job, body }: JobAnswer): void {
  res.setHeader('Cache-Control', 'no-store');
  res.set(pollHeaders(job));
  res.status(200).type('application/json').send(body);
}

export function getJobRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    sendJob(res, await getAccountJob(deps, account.id, jobIdParam(req)));
  };
}

export function cancelJobRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    sendJob(res, await cancelOwnJob(deps, account.id, jobIdParam(req)));
  };
}

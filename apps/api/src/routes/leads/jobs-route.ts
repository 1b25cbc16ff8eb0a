import type { Request, Response } from 'express';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import type { Valid } from '../../http/request-validation';
import { pollHeaders } from '../../presenters/job-presenter';
import { cancelOwnJob } from '../../use-cases/cancel-job';
import { getAccountJob, type JobAnswer } from '../../use-cases/read-job';
import type { JobPath } from '../path-params';

function sendJob(res: Response, { job, body }: JobAnswer): void {
  res.setHeader('Cache-Control', 'no-store');
  res.set(pollHeaders(job));
  res.status(200).type('application/json').send(body);
}

export function getJobRoute(deps: ApiDependencies) {
  return async (_req: Request, res: Response, { params }: Valid<JobPath>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    sendJob(res, await getAccountJob(deps, account.id, params.jobId));
  };
}

export function cancelJobRoute(deps: ApiDependencies) {
  return async (_req: Request, res: Response, { params }: Valid<JobPath>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    sendJob(res, await cancelOwnJob(deps, account.id, params.jobId));
  };
}

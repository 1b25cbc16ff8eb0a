import type { Request, Response } from 'express';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { linkNext, nextPageUrl } from '../../http/paging';
import type { Valid } from '../../http/request-validation';
import { listJobs, type ListJobsQuery } from '../../use-cases/list-jobs';

export function listJobsRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { query }: Valid<unknown, ListJobsQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const page = await listJobs(deps, account.id, query);
    res.setHeader('Cache-Control', 'no-store');
    if (page.nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, page.nextCursor)));
    res.status(200).json(page);
  };
}

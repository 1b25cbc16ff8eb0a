import type { Request, Response } from 'express';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { linkNext, nextPageUrl, parseQuery, splitCommas } from '../../http/paging';
import { listJobs, type ListJobsQuery } from '../../use-cases/list-jobs';
import { listJobsQuerySchema } from './list-jobs-schema';

export function listJobsRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const query = parseQuery<ListJobsQuery>(listJobsQuerySchema, splitCommas(req.query, ['status']));
    const page = await listJobs(deps, account.id, query);
    res.setHeader('Cache-Control', 'no-store');
    if (page.nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, page.nextCursor)));
    res.status(200).json(page);
  };
}

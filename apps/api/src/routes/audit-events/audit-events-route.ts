import type { Request, Response } from 'express';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { linkNext, nextPageUrl } from '../../http/paging';
import type { Valid } from '../../http/request-validation';
import { listAccountAuditEvents, type AuditEventsQuery } from '../../use-cases/list-audit-events';

/** GET /api/v1/audit-events: the caller's account's audit trail, newest first (keyset pages, as the job listing). */
export function auditEventsRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { query }: Valid<unknown, AuditEventsQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const page = await listAccountAuditEvents(deps, account.id, query);
    res.setHeader('Cache-Control', 'no-store');
    if (page.nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, page.nextCursor)));
    res.status(200).json(page);
  };
}

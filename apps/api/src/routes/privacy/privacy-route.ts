import type { Request, Response } from 'express';
import { listObjectionNotices, objectionNoticeData } from '@leadgen/db';
import type { ObjectionKind } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { encodeCursor, linkNext, nextPageUrl } from '../../http/paging';
import type { Valid } from '../../http/request-validation';
import { requestObjection, verifyDomainObjection } from '../../use-cases/objections';
import { objectionSubject, type NoticesQuery } from './privacy-schema';

const clientAddress = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/** POST /api/v1/privacy/objections: 202, the same answer whether or not the service holds the subject. */
export function requestObjectionRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { body }: Valid<unknown, unknown, Partial<Record<ObjectionKind, string>>>): Promise<void> => {
    const subject = objectionSubject(body);
    const answer = await requestObjection(deps, subject, clientAddress(req));
    res.setHeader('Cache-Control', 'no-store');
    res.status(202).json(answer);
  };
}

/** POST /api/v1/privacy/objections/{id}/verify: a domain's proof of control. */
export function verifyObjectionRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { params: { id } }: Valid<{ id: string }>): Promise<void> => {
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json(await verifyDomainObjection(deps, id, clientAddress(req)));
  };
}

/** GET /api/v1/privacy/objections: the caller's notices, newest first (the feed of subject.objected). */
export function listNoticesRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { query }: Valid<unknown, NoticesQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const rows = await listObjectionNotices(deps.db, account.id, { before: query.cursor, limit: query.limit + 1 });
    const items = rows.slice(0, query.limit);
    const nextCursor = rows.length > query.limit ? encodeCursor('n', [items.at(-1)!.id]) : null;
    res.setHeader('Cache-Control', 'no-store');
    if (nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, nextCursor)));
    res.status(200).json({ items: items.map(objectionNoticeData), nextCursor });
  };
}

import type { Request, Response } from 'express';
import { addSuppressions, countSuppressions, listSuppressions, removeSuppressions } from '@leadgen/db';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { encodeCursor, parseSuppressionsBody, parseSuppressionsQuery } from './suppressions-schema';

/** PUT /api/v1/suppressions: adds entries (an entry already there is no error); answers what changed and the totals. */
export function putSuppressionsRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const entries = parseSuppressionsBody(req.body);
    const added = await addSuppressions(deps.db, account.id, entries);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ added, counts: await countSuppressions(deps.db, account.id) });
  };
}

/** DELETE /api/v1/suppressions: removes the entries given (the same body as PUT). */
export function deleteSuppressionsRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const entries = parseSuppressionsBody(req.body);
    const removed = await removeSuppressions(deps.db, account.id, entries);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ removed, counts: await countSuppressions(deps.db, account.id) });
  };
}

/** GET /api/v1/suppressions: the counts, and a page of entries in (kind, value) order. */
export function getSuppressionsRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const query = parseSuppressionsQuery(req.query);
    const items = await listSuppressions(deps.db, account.id, { kind: query.kind, after: query.after, limit: query.limit + 1 });
    const page = items.slice(0, query.limit);
    const last = page[page.length - 1];
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      counts: await countSuppressions(deps.db, account.id),
      items: page.map((item) => ({ kind: item.kind, value: item.value, createdAt: item.createdAt.toISOString() })),
      nextCursor: items.length > query.limit && last ? encodeCursor(last) : null,
    });
  };
}

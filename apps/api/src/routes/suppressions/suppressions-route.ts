import type { Request, Response } from 'express';
import { addSuppressions, countSuppressions, listSuppressions, removeSuppressions } from '@leadgen/db';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { presentSuppression } from '../../presenters/suppression-presenter';
import { audit } from '../../use-cases/audit-trail';
import { encodeCursor, parseSuppressionsBody, parseSuppressionsQuery } from './suppressions-schema';

/**
 * PUT /api/v1/suppressions adds entries (an entry already there is no error) and DELETE removes the
 * entries sent; both answer how many changed and the totals.
 */
function changeSuppressionsRoute(deps: ApiDependencies, change: 'added' | 'removed') {
  const apply = change === 'added' ? addSuppressions : removeSuppressions;
  return async (req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const changed = await apply(deps.db, account.id, parseSuppressionsBody(req.body));
    await audit(deps, res.locals, account.id, 'suppressions.changed', { [change]: changed });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ [change]: changed, counts: await countSuppressions(deps.db, account.id) });
  };
}

export const putSuppressionsRoute = (deps: ApiDependencies) => changeSuppressionsRoute(deps, 'added');
export const deleteSuppressionsRoute = (deps: ApiDependencies) => changeSuppressionsRoute(deps, 'removed');

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
      items: page.map(presentSuppression),
      nextCursor: items.length > query.limit && last ? encodeCursor(last) : null,
    });
  };
}

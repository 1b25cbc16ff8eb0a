import type { Request, Response } from 'express';
import {
  addSuppressionsWithin,
  countSuppressions,
  listSuppressions,
  removeSuppressions,
  SUPPRESSION_CHUNK,
  type BetweenChunks,
  type EncodedSuppressions,
} from '@leadgen/db';
import { errors } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import type { Valid } from '../../http/request-validation';
import { chargeRateLimit, costOfEntries } from '../../http/rate-limit';
import { presentSuppression } from '../../presenters/suppression-presenter';
import { audit } from '../../use-cases/audit-trail';
import { bulkBodyBytes } from '../../http/bulk-body';
import { exportPacing } from '../../http/export-pacing';
import { suppressionUploads } from './suppression-upload-parser';
import { encodeCursor, type SuppressionsQuery } from './suppressions-schema';

/**
 * PUT /api/v1/suppressions adds entries (an entry already there is no error) and DELETE removes the
 * entries sent; both answer how many changed and the totals.
 */
function changeSuppressionsRoute(deps: ApiDependencies, change: 'added' | 'removed') {
  const limit = deps.config.api.suppressionsPerAccount;
  const add = async (accountId: string, entries: EncodedSuppressions, between: BetweenChunks): Promise<number> => {
    const outcome = await addSuppressionsWithin(deps.db, accountId, entries, limit, between);
    if ('overLimit' in outcome) throw errors.suppressionLimit(limit, outcome.overLimit.held);
    return outcome.added;
  };
  const apply =
    change === 'added'
      ? add
      : (accountId: string, entries: EncodedSuppressions, between: BetweenChunks) =>
          removeSuppressions(deps.db, accountId, entries, between);
  return async (req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    // Measured, parsed, checked and normalised on a thread of its own (suppression-upload-parser.ts), not the event
    // loop; weighted by what it may write (each ROWS_PER_UNIT, 100, entries cost one more call of the read limit), charged once
    // measured and before it is parsed: over the limit, 429 and it never is (issue 31, finding 3).
    const entries = await suppressionUploads.parse(bulkBodyBytes(req), (ceiling) => chargeRateLimit(res, costOfEntries(ceiling)));
    // Written up to SUPPRESSION_CHUNK entries a statement in one transaction (all or nothing), yielding before each
    // while another request is in flight or the loop is late, then CONTENDED_CHUNK (100) a statement for a second, as
    // a download does (decision 049): a 100,000-entry upload in one statement held a backend's core, and the other
    // accounts' calls, for seconds (decision 035, amended). Not to statements waiting for a connection: it holds its
    // own through its yields, so a yield would not give them one.
    const pace = exportPacing.start(null);
    let changed: number;
    try {
      changed = await apply(account.id, entries, () => pace.chunk(SUPPRESSION_CHUNK));
    } finally {
      pace.end();
    }
    await audit(deps, res.locals, account.id, 'suppressions.changed', { [change]: changed });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ [change]: changed, counts: await countSuppressions(deps.db, account.id) });
  };
}

export const putSuppressionsRoute = (deps: ApiDependencies) => changeSuppressionsRoute(deps, 'added');
export const deleteSuppressionsRoute = (deps: ApiDependencies) => changeSuppressionsRoute(deps, 'removed');

/** GET /api/v1/suppressions: the counts, and a page of entries in (kind, value) order. */
export function getSuppressionsRoute(deps: ApiDependencies) {
  return async (_req: Request, res: Response, { query }: Valid<unknown, SuppressionsQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const items = await listSuppressions(deps.db.reads, account.id, { kind: query.kind, after: query.cursor, limit: query.limit + 1 });
    const page = items.slice(0, query.limit);
    const last = page[page.length - 1];
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      counts: await countSuppressions(deps.db.reads, account.id),
      items: page.map(presentSuppression),
      nextCursor: items.length > query.limit && last ? encodeCursor(last) : null,
    });
  };
}

import type { Request, Response } from 'express';
import { creditSummary } from '@leadgen/db';
import type { ApiDependencies } from '../dependencies';
import { authenticatedAccount } from '../http/authenticate';
import { presentAccount } from '../presenters/account-presenter';

/** GET /api/v1/account: who the key belongs to and what it can spend. */
export function accountRoute(deps: ApiDependencies) {
  return async (_req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const credits = await creditSummary(deps.db, account.id);
    res.setHeader('Cache-Control', 'no-store');
    res.json(presentAccount(account, credits));
  };
}

import type { Request, Response } from 'express';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { quoteArea } from '../../use-cases/area-searches';
import { parseQuoteRequest } from './area-schema';

/** POST /api/v1/leads/quotes: 201 with the stored quote (decision 039). */
export function createQuoteRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const search = parseQuoteRequest(req.body);
    const quote = await quoteArea(deps, account.id, search);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(quote);
  };
}

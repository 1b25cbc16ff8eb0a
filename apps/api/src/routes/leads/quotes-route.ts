import type { Request, Response } from 'express';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import type { Valid } from '../../http/request-validation';
import { checkGoogleFieldsTier } from '../../use-cases/google-fields-check';
import { quoteArea } from '../../use-cases/area-searches';
import type { AreaSearch } from './area-schema';

/** POST /api/v1/leads/quotes: 201 with the stored quote (decision 039); the route table checked the body (area-schema.ts). */
export function createQuoteRoute(deps: ApiDependencies) {
  return async (_req: Request, res: Response, { body: search }: Valid<unknown, unknown, AreaSearch>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    checkGoogleFieldsTier(deps.config, search.request, '#/request');
    const quote = await quoteArea(deps, account.id, search);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(quote);
  };
}

import type { RequestHandler } from 'express';
import { accountForApiKey, type AccountRecord, type Database } from '@leadgen/db';
import { errors } from '@leadgen/domain';
import { withLogContext } from '@leadgen/logger';

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

export function authenticatedAccount(locals: Record<string, unknown>): AccountRecord {
  return locals.account as AccountRecord;
}

/** Authorization: Bearer <API_KEY>. The key itself never reaches a log or an error. */
export function authenticate(db: Database): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('Authorization');
    if (!header) throw errors.unauthorized('Send your API key as Authorization: Bearer <API_KEY>');
    const match = BEARER.exec(header);
    if (!match) throw errors.unauthorized('The Authorization header must be Bearer <API_KEY>');
    const account = await accountForApiKey(db, match[1]!);
    if (!account) throw errors.unauthorized('The API key is unknown or revoked');
    res.locals.account = account;
    withLogContext({ accountId: account.id }, next);
  };
}

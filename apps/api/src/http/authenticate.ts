import type { RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import { authenticateApiKey, hashApiKey, type AccountRecord, type Database, type KeyAuthentication } from '@leadgen/db';
import { errors } from '@leadgen/domain';
import { withLogContext } from '@leadgen/logger';

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

export function authenticatedAccount(locals: Record<string, unknown>): AccountRecord {
  return locals.account as AccountRecord;
}

/**
 * Authorization: Bearer <API_KEY>. The key itself never reaches a log or an error. A live key's
 * account is kept in memory for `cacheMs` (AUTH_CACHE_MS), keyed by the key's hash: a poll then costs
 * no query, and a revoked key stops working on every API process within that time (an expiry is
 * honoured to the millisecond). Unknown keys are never kept.
 */
export function authenticate(db: Database, options: { cacheMs: number }): RequestHandler {
  const known = options.cacheMs > 0 ? new LRUCache<string, KeyAuthentication>({ max: 10_000, ttl: options.cacheMs }) : null;
  return async (req, res, next) => {
    const header = req.get('Authorization');
    if (!header) throw errors.unauthorized('Send your API key as Authorization: Bearer <API_KEY>');
    const match = BEARER.exec(header);
    if (!match) throw errors.unauthorized('The Authorization header must be Bearer <API_KEY>');
    const keyHash = hashApiKey(match[1]!);
    let found = known?.get(keyHash);
    if (found?.keyExpiresAt && found.keyExpiresAt.getTime() <= Date.now()) {
      known?.delete(keyHash);
      found = undefined;
    }
    if (!found) {
      found = (await authenticateApiKey(db, keyHash)) ?? undefined;
      if (!found) throw errors.unauthorized('The API key is unknown, revoked or expired');
      known?.set(keyHash, found);
    }
    res.locals.account = found.account;
    withLogContext({ accountId: found.account.id }, next);
  };
}

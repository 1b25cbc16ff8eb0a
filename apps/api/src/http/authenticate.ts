import type { RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { authenticateApiKey, hashApiKey, type AccountRecord, type AuditActor, type Database, type KeyAuthentication } from '@leadgen/db';
import { errors } from '@leadgen/domain';
import { withLogContext } from '@leadgen/logger';

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

export function authenticatedAccount(locals: Record<string, unknown>): AccountRecord {
  return locals.account as AccountRecord;
}

/** Who does what this request does, for the audit trail: the key, and the request's id. */
export function auditActor(locals: Record<string, unknown>): AuditActor {
  return { actor: (locals.keyCheck as KeyCheck).keyId, requestId: (locals.requestId as string | undefined) ?? null };
}

/** What authentication leaves for the rate limit, which confirms a cached key against Redis. */
interface KeyCheck {
  keyHash: string;
  /** the account's key epoch the key was read under */
  keyEpoch: number;
  keyId: string;
}

export interface KeyAuthenticator {
  /** Authorization: Bearer <API_KEY>, from the cache or PostgreSQL */
  authenticate: RequestHandler;
  /**
   * Called by the rate limit with the account's key epoch as Redis holds it, or null when Redis
   * could not be asked: a key read under a lower epoch (a revocation was announced since), or one
   * that cannot be checked, is read again from PostgreSQL before the request goes on.
   */
  confirm(res: Response, redisKeyEpoch: number | null): Promise<void>;
}

/**
 * A live key's account is kept in memory for `cacheMs` (AUTH_CACHE_MS), keyed by the key's hash, so a
 * poll costs no query. A revocation raises the account's key epoch in PostgreSQL and announces it in
 * Redis before it returns; every request's rate-limit script reads that epoch (no extra command), and
 * an entry read under a lower one is dropped and read again, so a revoked key is refused from the next
 * request on, on every process. An expiry is honoured to the millisecond. Unknown keys are never kept,
 * and the key itself never reaches a log or an error.
 */
export function keyAuthenticator(db: Database, options: { cacheMs: number }): KeyAuthenticator {
  const known = options.cacheMs > 0 ? new LRUCache<string, KeyAuthentication>({ max: 10_000, ttl: options.cacheMs }) : null;

  const readKey = async (keyHash: string): Promise<KeyAuthentication> => {
    const found = await authenticateApiKey(db, keyHash);
    if (!found) {
      known?.delete(keyHash);
      throw errors.unauthorized('The API key is unknown, revoked or expired');
    }
    known?.set(keyHash, found);
    return found;
  };

  const use = (res: Response, keyHash: string, found: KeyAuthentication): void => {
    res.locals.account = found.account;
    res.locals.keyCheck = { keyHash, keyEpoch: found.keyEpoch, keyId: found.keyId } satisfies KeyCheck;
  };

  return {
    authenticate: async (req, res, next) => {
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
      found ??= await readKey(keyHash);
      use(res, keyHash, found);
      withLogContext({ accountId: found.account.id }, next);
    },
    async confirm(res, redisKeyEpoch) {
      const check = res.locals.keyCheck as KeyCheck | undefined;
      if (!check || (redisKeyEpoch !== null && redisKeyEpoch <= check.keyEpoch)) return;
      // Read after the epoch was: PostgreSQL already has the revocation that raised it.
      const fresh = await readKey(check.keyHash);
      if (redisKeyEpoch !== null && fresh.keyEpoch < redisKeyEpoch) {
        // Redis is ahead of this read (it announced a revocation this read already sees): remember
        // the announced epoch, or every request would read the key again.
        known?.set(check.keyHash, { ...fresh, keyEpoch: redisKeyEpoch });
      }
      use(res, check.keyHash, fresh);
    },
  };
}

import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { authenticateApiKey, hashApiKey, type AccountRecord, type AuditActor, type Database, type KeyAuthentication } from '@leadgen/db';
import { errors, scopeErrors, type ApiKeyMode, type ApiKeyScope } from '@leadgen/domain';
import { logger, withLogContext } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import type { RedisClient, RedisKeys } from '@leadgen/queue';
import { admitToWindow, giveBackToWindow, type Admission } from '@leadgen/rate-limits';
import type { LiveKeyDirectory } from './live-key-directory';

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

export function authenticatedAccount(locals: Record<string, unknown>): AccountRecord {
  return locals.account as AccountRecord;
}

/** Who does what this request does, for the audit trail: the key, and the request's id. */
export function auditActor(locals: Record<string, unknown>): AuditActor {
  return { actor: (locals.keyCheck as KeyCheck).keyId, requestId: (locals.requestId as string | undefined) ?? null };
}

/** The key a request came with, as a handler may need it: who it is, what it may do, live or test. */
export interface CallingKey {
  keyId: string;
  scopes: ApiKeyScope[];
  mode: ApiKeyMode;
}

export function callingKey(locals: Record<string, unknown>): CallingKey {
  const { keyId, scopes, mode } = locals.keyCheck as KeyCheck;
  return { keyId, scopes, mode };
}

/**
 * After authentication and the rate limit (which may have read the key again): the endpoint's scope, or 403
 * insufficient_scope naming it (decision 036). Counted in the rate limit first, so probing scopes costs calls.
 */
export function requireScope(scope: ApiKeyScope): RequestHandler {
  return (_req, res, next) => {
    if (!(res.locals.keyCheck as KeyCheck).scopes.includes(scope)) throw scopeErrors.insufficientScope(scope);
    next();
  };
}

/** What authentication leaves for the rate limit, which confirms a cached key against Redis. */
interface KeyCheck extends CallingKey {
  keyHash: string;
  /** the account's key epoch the key was read under */
  keyEpoch: number;
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
export interface PreAuthThrottle {
  redis: RedisClient;
  keys: RedisKeys;
  /** RATE_LIMIT_UNKNOWN_KEY_PER_MIN: keys PostgreSQL is asked about per client address per minute */
  perMinute: number;
  /** over the limit, whether a key may be live: one that may is looked up all the same */
  directory: LiveKeyDirectory;
}

const PRE_AUTH_WINDOW_SECONDS = 60;
/**
 * How long an unknown key is answered 401 from memory. Safe at any length: a key's hash that is
 * unknown never becomes known (keys are made random; a revoked or expired key never comes back).
 * Short, so the memory holds a flood's recent keys rather than all of them.
 */
export const UNKNOWN_KEY_CACHE_MS = 60_000;

export function keyAuthenticator(db: Database, options: { cacheMs: number; throttle?: PreAuthThrottle }): KeyAuthenticator {
  const known = options.cacheMs > 0 ? new LRUCache<string, KeyAuthentication>({ max: 10_000, ttl: options.cacheMs }) : null;
  const unknown = new LRUCache<string, true>({ max: 10_000, ttl: UNKNOWN_KEY_CACHE_MS });
  const throttle = options.throttle;

  /*
   * Before PostgreSQL is asked about a key it does not hold in memory, the client address's window
   * of such questions is checked and counted in one EVALSHA: a guesser with random keys gets 429 from
   * Redis, and costs the database nothing, once over the limit. A key that turns out to be known gives
   * its count back, so what stays counted are unknown keys. Without Redis the question is asked.
   * Over the limit a valid key is still never refused (decision 031): the live-key directory tells it
   * from a guess, so one stranger behind a NAT or an untrusted proxy cannot shut out its neighbours.
   */
  const admit = async (req: Request): Promise<{ key: string; admission: Admission } | null> => {
    if (!throttle) return null;
    // The client behind the proxies TRUST_PROXY names, as the board's login throttle keys it.
    const key = throttle.keys.key('unknown-keys', req.ip ?? req.socket.remoteAddress ?? 'unknown');
    try {
      return { key, admission: await admitToWindow(throttle.redis, key, throttle.perMinute, PRE_AUTH_WINDOW_SECONDS) };
    } catch (error) {
      logger.warn('unknown-key throttle not checked: redis unavailable', { error: (error as Error).message });
      return null;
    }
  };

  const readKey = async (keyHash: string): Promise<KeyAuthentication> => {
    const found = await authenticateApiKey(db, keyHash);
    if (!found) {
      known?.delete(keyHash);
      unknown.set(keyHash, true);
      throw errors.unauthorized('The API key is unknown, revoked or expired');
    }
    known?.set(keyHash, found);
    return found;
  };

  /*
   * One lookup per key hash at a time: a request that misses the memory while another request's lookup of the same
   * key is under way waits for that one, instead of its own window check, query and give-back. Under load the
   * lookup waits for a pool connection behind the hot path's statements, and every request of the key that came
   * meanwhile asked PostgreSQL again (issue 32: 0.9 lookups per sync generate at c=50 on a loaded box, each with
   * two Redis scripts). Only the lookup is shared, never a window's 429, which is the asking address's own.
   */
  const lookups = new Map<string, Promise<KeyAuthentication>>();
  const sharedRead = (keyHash: string): Promise<KeyAuthentication> => {
    const pending = lookups.get(keyHash);
    if (pending) return pending;
    const lookup = readKey(keyHash).finally(() => lookups.delete(keyHash));
    lookups.set(keyHash, lookup);
    return lookup;
  };

  /*
   * The requests of one key from one address that miss the memory together share one admission too: the window's
   * check, the lookup and the give-back. The lookup alone was shared, so when a cached key expired under load (a
   * client's 50 parallel calls) each request that came before the lookup began ran its own check and give-back: two
   * Redis scripts a request (issue 32: 0.66 of each per sync generate at c=50). A 429 is shared only with requests
   * from the same address, whose window it is; each gets its own error.
   */
  type Admitted = { found: KeyAuthentication } | { limitedSeconds: number };
  const admissions = new Map<string, Promise<Admitted>>();
  const admitAndRead = async (req: Request, keyHash: string): Promise<Admitted> => {
    const window = await admit(req);
    if (window && !window.admission.admitted && !(await throttle!.directory.mayBeLive(keyHash))) {
      return { limitedSeconds: Math.max(1, window.admission.ttlSeconds) };
    }
    const found = await sharedRead(keyHash);
    // Only an admitted lookup was counted; one let through over the limit had nothing to give back.
    if (window?.admission.admitted) await giveBackToWindow(throttle!.redis, window.key).catch(() => undefined);
    return { found };
  };
  const sharedAdmission = (req: Request, keyHash: string): Promise<Admitted> => {
    const key = `${req.ip ?? req.socket.remoteAddress ?? 'unknown'} ${keyHash}`;
    const pending = admissions.get(key);
    if (pending) return pending;
    const admission = admitAndRead(req, keyHash).finally(() => admissions.delete(key));
    admissions.set(key, admission);
    return admission;
  };

  const use = (res: Response, keyHash: string, found: KeyAuthentication): void => {
    res.locals.account = found.account;
    res.locals.keyCheck = {
      keyHash,
      keyEpoch: found.keyEpoch,
      keyId: found.keyId,
      scopes: found.keyScopes,
      mode: found.keyMode,
    } satisfies KeyCheck;
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
      if (!found) {
        if (unknown.has(keyHash)) throw errors.unauthorized('The API key is unknown, revoked or expired');
        const pending = lookups.get(keyHash);
        if (pending) found = await pending;
        else {
          const admitted = await sharedAdmission(req, keyHash);
          if ('limitedSeconds' in admitted) {
            metrics.rateLimited.inc({ limit: 'unknown_key' });
            throw errors.rateLimited(admitted.limitedSeconds);
          }
          found = admitted.found;
        }
      }
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

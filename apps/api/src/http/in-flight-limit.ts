import type { RequestHandler } from 'express';
import { errors } from '@leadgen/domain';
import { metrics } from '@leadgen/ops';
import { authenticatedAccount } from './authenticate';

/**
 * A concurrent-requests limiter per account (decision 050, as Stripe's): at most `perAccount` of one account's
 * requests in progress in this API process at once; one beyond answers 429 `too_many_in_flight` with Retry-After at
 * once, before its rate limit is counted or its body read. The rate limit bounds an account's calls a minute, which
 * an operator may raise far above its default; this bounds what one account holds of this process's event loop
 * (and, through its jobs' creations, of PostgreSQL) at any instant, whatever the rate limit. Counted in memory,
 * per process: no Redis command, and a fleet of N API processes lets an account have N × `perAccount` in flight.
 * A place is given back when the answer ends or the client goes away (the response's `close`, once). 0: no limit.
 */
export function inFlightLimit(perAccount: number): RequestHandler & { inFlight(accountId: string): number } {
  const counts = new Map<string, number>();
  const handler: RequestHandler = (_req, res, next) => {
    if (perAccount <= 0) return next();
    const { id } = authenticatedAccount(res.locals);
    const held = counts.get(id) ?? 0;
    if (held >= perAccount) {
      metrics.rateLimited.inc({ limit: 'in_flight' });
      throw errors.tooManyInFlight(perAccount);
    }
    counts.set(id, held + 1);
    res.once('close', () => {
      const now = (counts.get(id) ?? 1) - 1;
      if (now <= 0) counts.delete(id);
      else counts.set(id, now);
    });
    next();
  };
  return Object.assign(handler, { inFlight: (accountId: string) => counts.get(accountId) ?? 0 });
}

import type { RequestHandler, Response } from 'express';
import { errors } from '@leadgen/domain';
import { accountPresence, loopBusy, metrics, sampled } from '@leadgen/ops';
import { authenticatedAccount } from './authenticate';

/** How long an account that gave its last place back still counts as present, so the limit holds between its calls. */
const RECENT_MS = 1_000;

/** How often the loop's busy share is read for the rest (over the time since the read before). */
const BUSY_SAMPLE_MS = 100;

/** An account's requests that may wait for a place at once; one more is refused at once. */
export const IN_FLIGHT_QUEUE_LENGTH = 32;

export interface InFlightSettings {
  /** API_IN_FLIGHT_PER_ACCOUNT: an account's requests at work at once in this process; 0, no limit */
  perAccount: number;
  /** API_IN_FLIGHT_WAIT_MS: how long one beyond waits for a place before its 429 */
  waitMs: number;
  /**
   * API_IN_FLIGHT_REST: while another account is present, a place its request gave back rests this many times as long
   * as the request held it (at most a quarter of `waitMs`) before the account's next request takes it; 0, no rest
   */
  rest?: number;
  /**
   * API_IN_FLIGHT_REST_MIN_BUSY: places rest only while this process's event loop was busy at least this share of the
   * last 100 ms or more (0–1); with a quiet loop two accounts cost each other nothing, and nothing rests
   */
  restMinBusy?: number;
  /** the loop's busy share since the call before (tests give their own); the process's event loop utilisation */
  busy?: () => number;
}

interface Places {
  /** places taken: at work, or resting after their request (`resting` of them) */
  held: number;
  resting: number;
  waiting: Array<{ take: () => void }>;
}

/**
 * A concurrent-requests limiter per account with a short fair queue (decision 050; Stripe's "concurrent requests
 * limiter"). At most `perAccount` of one account's requests are at work in this API process at once; the next wait
 * in the account's own line (first come, first served, at most IN_FLIGHT_QUEUE_LENGTH) for `waitMs`, and one that
 * gets no place by then, or finds the line full, answers 429 `too_many_in_flight` with Retry-After, before its rate
 * limit is counted or its body read. Another account's requests never wait behind them. The rate limit bounds an
 * account's calls a minute, which an operator may raise far above its default; this bounds how much of this
 * process's event loop one account's requests hold at any instant, whatever the rate limit.
 *
 * Work-conserving: the limit holds only while another account is present in this process (holds or waits for a
 * place, or gave one back within the last second); an account alone may have any number at work, so one client's
 * parallel calls are not slowed when nobody else is there to protect.
 *
 * Paced (`rest`, API_IN_FLIGHT_REST): while another account is present and this process's loop is busy (at least
 * `restMinBusy` of the last 100 ms: API_IN_FLIGHT_REST_MIN_BUSY), a place given back rests `rest` times as long
 * as its request held it (at most a quarter of `waitMs`) before the account's next request takes it. Two places at
 * work all the time still let a closed loop of cheap requests admit work (jobs, and the deliveries they send) as fast
 * as the machine takes it; resting bounds each place to 1 / (1 + rest) of the time, so what one account admits while
 * another is here is a share of what it admits alone, whatever its requests cost.
 *
 * "At work": a synchronous generate gives its place back once its job is created and it only waits for the job's
 * end (`releaseInFlight`), so an account's long waits never hold its polls back. Counted in memory, per process:
 * no Redis command. A place is given back when the answer is written (the response's `finish`) or the client goes
 * away (its `close`).
 */
export function inFlightLimit(
  settings: InFlightSettings,
): RequestHandler & { state(accountId: string): { held: number; waiting: number } } {
  const accounts = new Map<string, Places>();
  // Present: holds or waits for a place, or gave one back within RECENT_MS (the rule the worker's turns share).
  const presence = accountPresence({ recentMs: RECENT_MS });
  // Work-conserving: an account alone in this process is not limited; the limit holds as soon as another is there.
  const mayTake = (id: string, places: Places) => places.held < settings.perAccount || !presence.othersPresent(id);
  const rest = settings.rest ?? 0;
  const busyNow = sampled(settings.busy ?? loopBusy(), BUSY_SAMPLE_MS);
  const restMinBusy = settings.restMinBusy ?? 0;
  const give = (id: string, places: Places, heldMs: number) => {
    presence.leave(id);
    // Paced while another account is here: the place rests in proportion to its work before the account's next request
    // takes it, so each place is at work at most 1 / (1 + rest) of the time and the account's total work (the
    // requests, the jobs they create, the deliveries those send) at most that share of what it would take alone.
    // At most a quarter of the wait: a request held long mostly waited (on a slow client, on an upstream), and the
    // account's next request in line still gets a place within its wait.
    const restMs = Math.min(settings.waitMs / 4, rest * heldMs);
    if (restMs >= 1 && presence.othersPresent(id) && busyNow() >= restMinBusy) {
      places.resting += 1;
      setTimeout(() => {
        places.resting -= 1;
        handOn(id, places);
      }, restMs).unref();
      return;
    }
    handOn(id, places);
  };
  const handOn = (id: string, places: Places) => {
    places.held -= 1;
    while (places.waiting.length > 0 && mayTake(id, places)) {
      places.held += 1;
      places.waiting.shift()!.take(); // the place passes to the account's next request
    }
    if (places.held <= 0 && places.waiting.length === 0) accounts.delete(id);
  };
  const handler: RequestHandler = (_req, res, next) => {
    if (settings.perAccount <= 0) return next();
    // One place per request: should a request meet this limiter again (a second route entry), it keeps the one it has.
    if (res.locals.releaseInFlight) return next();
    const { id } = authenticatedAccount(res.locals);
    let places = accounts.get(id);
    if (!places) accounts.set(id, (places = { held: 0, resting: 0, waiting: [] }));
    const own = places;
    presence.arrive(id);
    let given = false;
    let startedAt = 0;
    const release = () => {
      if (given) return;
      given = true;
      give(id, own, performance.now() - startedAt);
    };
    const start = () => {
      startedAt = performance.now();
      res.locals.releaseInFlight = release;
      // Given back when the answer is written ('finish') or the connection closes first ('close': the client went away).
      res.once('finish', release);
      res.once('close', release);
      // Its socket may be gone already (a parse error later on the same connection answered and closed it while the
      // key was looked up): its 'close' came before these listeners and will not come again.
      if (isOver(res)) release();
      next();
    };
    if (own.waiting.length === 0 && mayTake(id, own)) {
      own.held += 1;
      start();
      return;
    }
    const refuse = () => {
      metrics.rateLimited.inc({ limit: 'in_flight' });
      next(errors.tooManyInFlight(settings.perAccount, Math.max(1, Math.ceil(settings.waitMs / 1000))));
    };
    if (own.waiting.length >= IN_FLIGHT_QUEUE_LENGTH || settings.waitMs <= 0) {
      presence.leave(id);
      return refuse();
    }
    const entry = {
      take: () => {
        clearTimeout(timer);
        res.off('close', gone);
        start();
      },
    };
    const leave = () => {
      const at = own.waiting.indexOf(entry);
      if (at >= 0) own.waiting.splice(at, 1);
      presence.leave(id);
      if (own.held <= 0 && own.waiting.length === 0) accounts.delete(id);
    };
    // Gone before its place came: out of the line (nothing to answer).
    const gone = () => {
      clearTimeout(timer);
      leave();
    };
    const timer = setTimeout(() => {
      res.off('close', gone);
      leave();
      refuse();
    }, settings.waitMs);
    own.waiting.push(entry);
    res.once('close', gone);
  };
  return Object.assign(handler, {
    state: (accountId: string) => ({ held: accounts.get(accountId)?.held ?? 0, waiting: accounts.get(accountId)?.waiting.length ?? 0 }),
  });
}

/** The answer is written or its connection gone: nothing of it is at work any more. */
function isOver(res: Response): boolean {
  return res.writableFinished || res.destroyed || !res.socket || res.socket.destroyed;
}

/** Gives the request's place back early (a sync generate that now only waits for its job); idempotent. */
export function releaseInFlight(res: Response): void {
  (res.locals.releaseInFlight as (() => void) | undefined)?.();
}

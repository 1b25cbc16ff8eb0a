import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import type { MailboxVerdict, VerifierEngine } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import { ProviderError } from '../../lead-provider';
import { countUpstreamCalls, upstreamCallCounts } from '../../upstream/upstream-client';
import type { EngineAnswer, MailboxEngine } from './engine';
import type { MailboxCache } from './mailbox-cache';

/** An address the DNS gate let through, with its ASCII domain. */
export interface MailboxTarget {
  address: string;
  domain: string;
}

export interface MailboxResult {
  verdict: MailboxVerdict;
  reason: string;
  engine: VerifierEngine;
  verdictAt: string;
}

export interface MailboxStageOptions {
  engine: MailboxEngine;
  /** null: no fleet-wide cache (tests of the engine alone) */
  cache: MailboxCache | null;
  /** engine calls in flight at once in this process (the fleet-wide rate is the engine client's limiter) */
  concurrency: number;
  /** the longest a page waits for its verdicts; what is not back by then is `unknown` (reason `late`) */
  budgetMs: number;
  /** while the engine is down, one call per this is let through to see whether it is back; the rest are `unknown` at once */
  downProbeMs: number;
  now?: () => Date;
}

export interface MailboxStage {
  readonly engine: VerifierEngine;
  /** Verdicts for the addresses, each back by min(deadline - 1 s, now + budget) or `unknown`; rejects only when `signal` aborts. */
  verify(targets: readonly MailboxTarget[], signal: AbortSignal, deadline: number): Promise<Map<string, MailboxResult>>;
}

type Answer = EngineAnswer & { verdictAt: string };
/** Why a call brought no answer: the engine is known down, it failed, or it was not back in time. */
type Miss = 'verifier_down' | 'verifier_error' | 'late';

const DEADLINE_MARGIN_MS = 1_000;
/** a domain probe's lease outlives its page's budget by this, so a slow answer still lands before another probes */
const LEASE_SLACK_MS = 1_000;
/** how often a worker waiting for another's probe of a domain looks for its finding */
const PROBE_POLL_MS = 50;

/**
 * Another worker's probe of the domain, awaited: its finding once it is in the fleet's cache, or null when its
 * lease is gone without one (it failed, or its engine tells nothing about catch-all) or the page's time is up.
 */
async function awaitDomain(cache: MailboxCache, engine: string, domain: string, stopAt: number, signal: AbortSignal) {
  for (;;) {
    const found = await cache.domain(engine, domain);
    if (found) return found;
    if (signal.aborted || Date.now() >= stopAt || !(await cache.domainProbeHeld(engine, domain))) return null;
    await new Promise((resolve) => setTimeout(resolve, PROBE_POLL_MS));
  }
}

/** The call ran out of its budget: not the engine's failure as such (one slow mail server, a greylisting delay). */
function isLate(error: unknown): boolean {
  return (
    error instanceof ProviderError &&
    /no request slot|no attempt finished|deadline has passed|deadline was reached|after the job's deadline/.test(error.message)
  );
}

/** Late although the engine was asked: it answered nothing in time (no slot of ours, no attempt made, is not that). */
function engineWasSlow(error: unknown): boolean {
  return error instanceof ProviderError && !/no request slot|no attempt finished|deadline has passed/.test(error.message);
}

/** An engine that lets this many calls in a row run out of time is as good as down (it hangs). */
const SLOW_CALLS_BEFORE_DOWN = 5;

/**
 * A page's end: `settle(p)` is p, or `late` at `stopAt`, or rejects with the signal's reason when it
 * aborts. One timer and one abort listener per page, however many addresses it has.
 */
function pageEnd(stopAt: number, signal: AbortSignal) {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => undefined as void;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, stopAt - Date.now()));
  });
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  return {
    settle: <T>(promise: Promise<T>): Promise<T | 'late'> => Promise.race([promise, late, aborted]),
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * The mailbox-level step after the DNS gate (decision 034), one per worker process: its
 * concurrency, its in-flight calls and its view of whether the engine is up are shared by every
 * job the process runs. Per page: a domain known catch-all costs no call; an address verified
 * before (by any worker) costs none; on a domain not yet known, the first address is probed alone
 * and, when the engine finds the domain catch-all, the others follow without a call. A call ends
 * with the page's budget (its rate-limit wait included): what is not back is `unknown`, and no
 * call outlives the page to hold a slot a later page needs. An engine that fails is `down`: one warning, then one call
 * per `downProbeMs` sees whether it is back (one info line when it is); meanwhile `unknown` at once.
 */
export function createMailboxStage(options: MailboxStageOptions): MailboxStage {
  const { engine, cache } = options;
  const name = engine.name;
  const limit = pLimit(Math.max(1, options.concurrency));
  const now = options.now ?? (() => new Date());
  const inFlight = new Map<string, Promise<Answer | Miss>>();
  // A call may serve another job's page too (the in-flight map): only its deadline ends it, never one job's abort.
  const unaborted = new AbortController().signal;
  // Every call in flight listens on it (the client's per-attempt timer): as many as the concurrency allows.
  setMaxListeners(0, unaborted);
  let down = false;
  let nextProbeAt = 0;
  let slowInARow = 0;

  const count = (outcome: string) => metrics.emailVerifierCalls.inc({ engine: name, outcome });

  const markDown = (error: unknown) => {
    nextProbeAt = Date.now() + options.downProbeMs;
    if (down) return;
    down = true;
    logger.warn('email verifier down: its verdicts are unknown until it answers again', {
      engine: name,
      error: error instanceof Error ? error.message : String(error),
    });
  };
  const markUp = () => {
    if (!down) return;
    down = false;
    logger.info('email verifier answering again', { engine: name });
  };

  const ask = async (address: string, domain: string, deadline: number): Promise<Answer | Miss> => {
    if (Date.now() >= deadline) {
      count('late');
      return 'late';
    }
    try {
      const answer = await engine.check(address, unaborted, deadline);
      count('ok');
      slowInARow = 0;
      markUp();
      const verdictAt = now().toISOString();
      await cache?.setAddress(name, address, { verdict: answer.verdict, reason: answer.reason, verdictAt });
      if (answer.catchAllDomain !== null)
        await cache?.setDomain(name, domain, { catchAll: answer.catchAllDomain, reason: answer.reason, verdictAt });
      return { ...answer, verdictAt };
    } catch (error) {
      if (isLate(error)) {
        count('late');
        if (engineWasSlow(error) && ++slowInARow >= SLOW_CALLS_BEFORE_DOWN)
          markDown(new Error(`${slowInARow} calls in a row not answered in time`));
        return 'late';
      }
      count('failed');
      markDown(error);
      return 'verifier_error';
    }
  };

  // `counts`: the calling job's upstream call counts (decision 038). p-limit runs a queued call in the async
  // context of whichever call freed its slot, often another job's, so the call is run in its own job's scope:
  // the job that started a call pays for it (and its retries); one that shares it in flight made no call.
  const call = (address: string, domain: string, deadline: number, counts?: Map<string, number>): Promise<Answer | Miss> => {
    const key = address.toLowerCase();
    const pending = inFlight.get(key);
    if (pending) return pending;
    if (down && Date.now() < nextProbeAt) {
      count('skipped_down');
      return Promise.resolve('verifier_down');
    }
    // This call is the probe: the others skip until it tells whether the engine is back.
    if (down) nextProbeAt = Date.now() + options.downProbeMs;
    const started = limit(() =>
      counts ? countUpstreamCalls(counts, () => ask(address, domain, deadline)) : ask(address, domain, deadline),
    ).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  };

  return {
    engine: name,
    async verify(targets, signal, deadline) {
      const counts = upstreamCallCounts();
      const stopAt = Math.min(deadline - DEADLINE_MARGIN_MS, Date.now() + options.budgetMs);
      const end = pageEnd(stopAt, signal);
      const results = new Map<string, MailboxResult>();
      const record = (address: string, outcome: Answer | Miss) => {
        if (typeof outcome === 'string')
          results.set(address, { verdict: 'unknown', reason: outcome, engine: name, verdictAt: now().toISOString() });
        else results.set(address, { verdict: outcome.verdict, reason: outcome.reason, engine: name, verdictAt: outcome.verdictAt });
      };
      const byDomain = new Map<string, string[]>();
      for (const { address, domain } of targets) {
        const list = byDomain.get(domain) ?? [];
        if (!list.includes(address)) list.push(address);
        byDomain.set(domain, list);
      }

      const verifyDomain = async (domain: string, addresses: string[]) => {
        const known = cache ? await cache.domain(name, domain) : null;
        if (cache) metrics.emailMailboxCache.inc({ level: 'domain', result: known ? 'hit' : 'miss' });
        if (known?.catchAll) {
          for (const address of addresses)
            results.set(address, { verdict: 'catch_all', reason: known.reason, engine: name, verdictAt: known.verdictAt });
          return;
        }
        let open: string[] = [];
        for (const address of addresses) {
          const cached = cache ? await cache.address(name, address) : null;
          if (cache) metrics.emailMailboxCache.inc({ level: 'address', result: cached ? 'hit' : 'miss' });
          if (cached) results.set(address, { ...cached, engine: name });
          else open.push(address);
        }
        if (open.length === 0) return;
        let found = known;
        // The domain's first probe is the fleet's one (a lease in Redis): a worker that finds it taken waits for
        // that probe's finding instead of probing too, as long as its page may wait.
        const lease = cache && found === null ? await cache.claimDomainProbe(name, domain, stopAt - Date.now() + LEASE_SLACK_MS) : null;
        if (cache && lease && !lease.taken) {
          found = await end.settle(awaitDomain(cache, name, domain, stopAt, signal)).then((f) => (f === 'late' ? null : f));
          if (found?.catchAll) {
            for (const address of open)
              results.set(address, { verdict: 'catch_all', reason: found.reason, engine: name, verdictAt: found.verdictAt });
            return;
          }
        }
        if (found === null) {
          // The domain's first probe, alone: if it finds the domain catch-all, the rest cost nothing.
          const [first, ...rest] = open as [string, ...string[]];
          let outcome: Answer | Miss | 'late';
          try {
            outcome = await end.settle(call(first, domain, stopAt, counts));
          } finally {
            if (cache && lease?.taken) await cache.releaseDomainProbe(name, domain, lease.token);
          }
          record(first, outcome);
          if (typeof outcome !== 'string' && outcome.catchAllDomain === true) {
            for (const address of rest)
              results.set(address, { verdict: 'catch_all', reason: outcome.reason, engine: name, verdictAt: outcome.verdictAt });
            return;
          }
          open = rest;
        }
        await Promise.all(open.map(async (address) => record(address, await end.settle(call(address, domain, stopAt, counts)))));
      };

      try {
        await Promise.all([...byDomain].map(([domain, addresses]) => verifyDomain(domain, addresses)));
      } finally {
        end.dispose();
      }
      return results;
    },
  };
}

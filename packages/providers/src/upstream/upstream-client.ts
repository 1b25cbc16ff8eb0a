import { AsyncLocalStorage } from 'node:async_hooks';
import { metrics } from '@leadgen/ops';
import { ProviderError } from '../lead-provider';
import { signalUntil, sleep } from '../abortable-waits';
import { type RateLimiter, unlimitedRateLimiter } from './rate-limiter';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter, type RetryPolicy } from './retry-policy';
import { pauseFromRateLimitHeaders } from './rate-limit-headers';
import { describeErrorBody, UpstreamError } from './upstream-error';

export interface UpstreamClientOptions {
  /** the provider's name, used in error messages ("google_places") */
  name: string;
  baseUrl: string;
  /** sent with every request (credentials); never logged or put into messages */
  headers: Record<string, string>;
  rateLimiter?: RateLimiter;
  retry?: Partial<RetryPolicy>;
  /** one attempt's limit, headers and body included: a response that never finishes is abandoned */
  attemptTimeoutMs?: number;
  random?: () => number;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** epoch ms: no attempt runs and no retry sleeps past it */
  deadline: number;
  /** non-2xx statuses the caller handles itself (PDL's 404 "no match"), returned instead of thrown */
  acceptStatuses?: readonly number[];
}

export interface UpstreamResponse {
  status: number;
  /** the parsed JSON body; null for an empty body */
  body: unknown;
}

/** One retry of an upstream call, as reported to whoever runs the job (its BullMQ log). */
export interface UpstreamRetry {
  upstream: string;
  /** the attempt that failed */
  attempt: number;
  outcome: string;
  delayMs: number;
}

/**
 * Who hears of the upstream calls made now: one AsyncLocalStorage for both (each one enabled adds its own
 * propagation to every promise the process makes on Node 20, where issue 32 found the hooks at ~7% of the worker).
 * Each scope keeps what it does not set from the one it runs in.
 */
interface UpstreamScope {
  counts?: Map<string, number>;
  onRetry?: (retry: UpstreamRetry) => void;
}
const scopes = new AsyncLocalStorage<UpstreamScope>();

/**
 * Tells `listener` of every upstream retry made while `fn` runs, however deep in a provider: the
 * worker writes them to the job's log without every adapter passing a callback down.
 */
export function onUpstreamRetry<T>(listener: (retry: UpstreamRetry) => void, fn: () => T): T {
  return scopes.run({ ...scopes.getStore(), onRetry: listener }, fn);
}

/**
 * Counts in `counts` (by upstream name) every request sent while `fn` runs, retries included, however
 * deep in a provider: the worker reports what a job cost upstream without every adapter counting.
 * Already counting in `counts` (a call made in its own job's scope), `fn` just runs: no new scope.
 */
export function countUpstreamCalls<T>(counts: Map<string, number>, fn: () => T): T {
  const scope = scopes.getStore();
  return scope?.counts === counts ? fn() : scopes.run({ ...scope, counts }, fn);
}

/**
 * The counts of the `countUpstreamCalls` scope running now (undefined outside one): for work that a shared
 * queue may run in another job's async context (the mailbox stage's concurrency limit), which captures it
 * on entry and runs its calls in it again (decision 038).
 */
export function upstreamCallCounts(): Map<string, number> | undefined {
  return scopes.getStore()?.counts;
}

/** A failure worth another attempt, with the delay the upstream asked for, if any. */
class Transient extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs: number | null = null,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * The one way adapters talk to an upstream: fleet-wide rate limit, per-attempt timeout, retries
 * with backoff and jitter on 429/5xx/network failures (honouring Retry-After), and a fixed mapping
 * of failures onto ProviderError: 401/403, or a body that refuses the credentials, end the job as `provider_unauthorized`; other 4xx, an
 * unreadable body or exhausted retries are `provider_error`. An aborted signal always wins and is
 * rethrown as its own reason.
 */
export class UpstreamClient {
  private readonly policy: RetryPolicy;
  private readonly limiter: RateLimiter;
  private readonly attemptTimeoutMs: number;
  private readonly random: () => number;

  constructor(private readonly options: UpstreamClientOptions) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.limiter = options.rateLimiter ?? unlimitedRateLimiter;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 30_000;
    this.random = options.random ?? Math.random;
  }

  get name(): string {
    return this.options.name;
  }

  async request(request: UpstreamRequest): Promise<UpstreamResponse> {
    const { signal, deadline } = request;
    let last: Transient | null = null;
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw signal.reason;
      if (Date.now() >= deadline) throw await this.atDeadline(signal, last);
      await this.limiter.acquire(signal, deadline);
      try {
        return await this.attempt(request);
      } catch (error) {
        if (!(error instanceof Transient)) throw error;
        last = error;
      }
      if (Date.now() >= deadline) throw await this.atDeadline(signal, last);
      if (attempt >= this.policy.maxAttempts) throw this.gaveUp(last, `${attempt} attempts failed`);
      if (last.retryAfterMs !== null && last.retryAfterMs > this.policy.maxRetryAfterMs) {
        throw this.gaveUp(last, `it asked to wait ${Math.round(last.retryAfterMs / 1000)} s`);
      }
      if (last.status === 429 && last.retryAfterMs !== null) await this.limiter.pause(last.retryAfterMs);
      // Retry-After is a floor; the jitter on top spreads out the fleet's retries.
      const delay =
        last.retryAfterMs !== null
          ? last.retryAfterMs + Math.round(this.random() * Math.min(this.policy.baseDelayMs, 1000))
          : backoffDelay(this.policy, attempt, this.random);
      if (Date.now() + delay >= deadline) throw this.gaveUp(last, "the next retry would start after the job's deadline");
      scopes.getStore()?.onRetry?.({ upstream: this.name, attempt, outcome: attemptOutcome(last), delayMs: delay });
      await sleep(delay, signal);
    }
  }

  /** One attempt, counted with its latency by outcome (leadgen_upstream_request_duration_seconds). */
  private async attempt(request: UpstreamRequest): Promise<UpstreamResponse> {
    const counts = scopes.getStore()?.counts;
    counts?.set(this.name, (counts.get(this.name) ?? 0) + 1);
    const started = performance.now();
    let outcome = 'ok';
    try {
      return await this.attemptOnce(request);
    } catch (error) {
      outcome = attemptOutcome(error);
      throw error;
    } finally {
      // An attempt our own job aborted (cancel, shutdown) says nothing about the upstream.
      if (!request.signal.aborted)
        metrics.upstreamRequestDuration.observe({ upstream: this.name, outcome }, (performance.now() - started) / 1000);
    }
  }

  private async attemptOnce(request: UpstreamRequest): Promise<UpstreamResponse> {
    const url = new URL(request.path, this.options.baseUrl.replace(/\/*$/, '/'));
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...request.headers };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const step = signalUntil(request.signal, Math.min(request.deadline, Date.now() + this.attemptTimeoutMs));
    let status: number;
    let retryAfter: string | null;
    let text: string;
    try {
      const response = await fetch(url, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: step.signal,
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      // The upstream says its window is spent: hold the fleet until it resets instead of collecting 429s.
      const pause = pauseFromRateLimitHeaders(response.headers);
      if (pause !== null && pause > 0) await this.limiter.pause(Math.min(pause, this.policy.maxRetryAfterMs));
      // The same signal bounds the body: a response that starts but never finishes is cut off.
      text = await response.text();
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      const timedOut = step.signal.aborted;
      throw new Transient(timedOut ? 'no complete answer in time' : `network error (${errorText(error)})`);
    } finally {
      step.dispose();
    }
    const ok = (status >= 200 && status < 300) || (request.acceptStatuses ?? []).includes(status);
    const body = parseJson(text);
    if (ok) {
      if (body === undefined)
        throw new UpstreamError('provider_error', `${this.name}: answered ${status} with a body that is not JSON`, status);
      return { status, body };
    }
    const described = describeErrorBody(body);
    const detail = [described.code, described.message].filter(Boolean).join(': ');
    const message = `${this.name}: HTTP ${status}${detail ? ` ${detail}` : ''}`;
    // Retry-After when sent; Google sends none and puts the delay in the body's RetryInfo instead.
    if (status === 429 || status >= 500)
      throw new Transient(message, status, parseRetryAfter(retryAfter) ?? described.retryAfterMs ?? null, described.code);
    if (status === 401 || status === 403 || described.credentialsRefused)
      throw new UpstreamError('provider_unauthorized', `${message} (credentials refused)`, status, described.code);
    throw new UpstreamError('provider_error', message, status, described.code);
  }

  /**
   * The job's own timer aborts its signal at the same deadline. Give it a moment to land, so the
   * job ends as the timeout it is, with the signal's reason, rather than as an upstream failure.
   */
  private async atDeadline(signal: AbortSignal, last: Transient | null): Promise<unknown> {
    await sleep(250, signal).catch(() => undefined);
    return signal.aborted ? signal.reason : this.gaveUp(last, "the job's deadline was reached");
  }

  private gaveUp(last: Transient | null, why: string): ProviderError {
    const what = last ? last.message.replace(`${this.name}: `, '') : 'no attempt finished';
    return new UpstreamError('provider_error', `${this.name}: gave up, ${why}; last: ${what}`, last?.status, last?.code);
  }
}

/** The parsed JSON, null for an empty body, undefined when the text is not JSON. */
function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}

/** The bounded outcome label of a failed attempt. */
function attemptOutcome(error: unknown): string {
  const status = error instanceof Transient ? error.status : error instanceof UpstreamError ? error.upstreamStatus : undefined;
  if (status === 429) return '429';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status !== undefined && status >= 500) return '5xx';
  if (status !== undefined && status >= 400) return '4xx';
  if (error instanceof Transient) return error.message === 'no complete answer in time' ? 'timeout' : 'network_error';
  return 'invalid_body';
}

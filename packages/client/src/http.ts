import type { Problem } from './api-bodies.js';
import { LeadgenError, LeadgenTimeoutError, type ErrorProblem } from './problem-error.js';
import { responseMeta, withMeta, type ResponseMeta, type WithMeta } from './response-meta.js';

/** Sent as User-Agent (where the runtime lets a script set it), so operators can tell clients apart. */
export const CLIENT_VERSION = '0.1.0';

export interface HttpOptions {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  /** retries of a 429, a 503 or a network failure (default 4) */
  maxRetries: number;
  /** the first backoff when the answer gives no Retry-After (default 500 ms, doubled each time) */
  retryBaseMs: number;
  /** how long one attempt may take until its body is read (headers only for a streamed download) */
  timeoutMs: number;
  userAgent: string;
}

/** What every call takes. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** this call's timeout instead of the client's `timeoutMs` */
  timeoutMs?: number;
}

export interface Call extends RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Waits, or rejects with the signal's reason when it is aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Retry-After in seconds (the API sends seconds), else null. */
export function retryAfterMs(response: Response): number | null {
  return responseMeta(response).retryAfterMs;
}

async function problemOf(response: Response): Promise<ErrorProblem> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as Problem;
    if (parsed && typeof parsed.code === 'string') return parsed;
  } catch {
    // not Problem Details: a proxy's page, for instance
  }
  return {
    type: 'about:blank',
    title: response.statusText,
    status: response.status,
    detail: text.slice(0, 200),
    code: `http_${response.status}`,
  };
}

/** An attempt's signal: the caller's, and a timer that `stop()` ends once the answer is read. */
function attemptSignal(outer: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new LeadgenTimeoutError('request', timeoutMs));
  }, timeoutMs);
  const onAbort = () => controller.abort(outer!.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    stop: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * One call with retries: 429 and 503 wait for Retry-After (or an exponential backoff), as do network
 * failures; every other error answer rejects with a LeadgenError. Each attempt is bounded by the
 * timeout until `read` has the body (for `stream`, until the headers). Safe for POST generate only
 * because the caller sends the same Idempotency-Key on every attempt.
 */
export async function send<T>(
  options: HttpOptions,
  call: Call,
  read: (response: Response) => Promise<T>,
): Promise<{ value: T; meta: ResponseMeta; response: Response }> {
  const url = /^https?:/.test(call.path) ? call.path : `${options.baseUrl.replace(/\/$/, '')}${call.path}`;
  const timeoutMs = call.timeoutMs ?? options.timeoutMs;
  for (let attempt = 0; ; attempt += 1) {
    const backoff = options.retryBaseMs * 2 ** attempt;
    const bound = attemptSignal(call.signal, timeoutMs);
    let response: Response;
    try {
      response = await options.fetch(url, {
        method: call.method,
        headers: {
          Authorization: `Bearer ${options.apiKey}`,
          'User-Agent': options.userAgent,
          ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...call.headers,
        },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: bound.signal,
      });
    } catch (error) {
      bound.stop();
      if (bound.timedOut()) throw new LeadgenTimeoutError('request', timeoutMs);
      if (call.signal?.aborted || attempt >= options.maxRetries) throw error;
      await sleep(backoff, call.signal);
      continue;
    }
    const meta = responseMeta(response);
    try {
      if (response.ok) return { value: await read(response), meta, response };
      if ((response.status === 429 || response.status === 503) && attempt < options.maxRetries) {
        await response.body?.cancel();
        bound.stop();
        await sleep(meta.retryAfterMs ?? backoff, call.signal);
        continue;
      }
      throw new LeadgenError(await problemOf(response), meta);
    } catch (error) {
      if (bound.timedOut()) throw new LeadgenTimeoutError('request', timeoutMs);
      throw error;
    } finally {
      bound.stop();
    }
  }
}

/** A JSON answer with its metadata. */
export async function sendJson<T extends object>(options: HttpOptions, call: Call): Promise<WithMeta<T>> {
  const { value, meta } = await send(options, call, async (response) => (await response.json()) as T);
  return withMeta(value, meta);
}

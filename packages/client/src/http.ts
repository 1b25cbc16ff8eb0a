import type { Problem } from './api-bodies.js';
import { LeadgenError, type ErrorProblem } from './problem-error.js';

export interface HttpOptions {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  /** retries of a 429, a 503 or a network failure (default 4) */
  maxRetries: number;
  /** the first backoff when the answer gives no Retry-After (default 500 ms, doubled each time) */
  retryBaseMs: number;
}

export interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
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
  const value = Number(response.headers.get('Retry-After'));
  return Number.isFinite(value) && value >= 0 && response.headers.get('Retry-After') !== null ? value * 1000 : null;
}

async function problemOf(response: Response): Promise<ErrorProblem> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as Problem;
    if (parsed && typeof parsed.code === 'string') return parsed;
  } catch {
    // not Problem Details: a proxy's page, for instance
  }
  return { type: 'about:blank', title: response.statusText, status: response.status, detail: text.slice(0, 200), code: `http_${response.status}` };
}

/**
 * One call with retries: 429 and 503 wait for Retry-After (or an exponential backoff), as do network
 * failures; every other error answer rejects with a LeadgenError. Safe for POST generate only because
 * the caller sends the same Idempotency-Key on every attempt.
 */
export async function send(options: HttpOptions, call: Call): Promise<Response> {
  const url = /^https?:/.test(call.path) ? call.path : `${options.baseUrl.replace(/\/$/, '')}${call.path}`;
  for (let attempt = 0; ; attempt += 1) {
    const backoff = options.retryBaseMs * 2 ** attempt;
    let response: Response;
    try {
      response = await options.fetch(url, {
        method: call.method,
        headers: {
          Authorization: `Bearer ${options.apiKey}`,
          ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...call.headers,
        },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: call.signal,
      });
    } catch (error) {
      if (call.signal?.aborted || attempt >= options.maxRetries) throw error;
      await sleep(backoff, call.signal);
      continue;
    }
    if (response.ok) return response;
    if ((response.status === 429 || response.status === 503) && attempt < options.maxRetries) {
      await response.body?.cancel();
      await sleep(retryAfterMs(response) ?? backoff, call.signal);
      continue;
    }
    throw new LeadgenError(await problemOf(response));
  }
}

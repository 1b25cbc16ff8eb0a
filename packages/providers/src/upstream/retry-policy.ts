/** How an upstream client retries. Delays are small in tests, realistic in production. */
export interface RetryPolicy {
  /** attempts in all, the first included */
  maxAttempts: number;
  /** backoff for the first retry; doubles each time */
  baseDelayMs: number;
  maxDelayMs: number;
  /** a Retry-After longer than this is not waited for: the call fails instead */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 120_000,
};

/**
 * Exponential backoff with "equal jitter": half the delay is fixed, half random. Jitter keeps a
 * fleet of workers that failed together from retrying together; the fixed half keeps a retry
 * from coming back at once.
 */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Retry-After as delay-seconds or an HTTP-date (RFC 9110 10.2.3), in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

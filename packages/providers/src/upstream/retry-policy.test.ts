import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter } from './retry-policy';

describe('retry timing', () => {
  it('when Retry-After is delay-seconds or an HTTP-date, then it becomes a delay in ms', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it('when retries follow one another, then the backoff doubles within half-to-full jitter and stops at the cap', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelay(policy, 1, () => 0)).toBe(50);
    expect(backoffDelay(policy, 1, () => 1)).toBe(100);
    expect(backoffDelay(policy, 3, () => 1)).toBe(400);
    expect(backoffDelay(policy, 10, () => 1)).toBe(1_000);
  });
});

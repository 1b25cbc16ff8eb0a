import { pauseFromRateLimitHeaders } from './rate-limit-headers';
import { describeErrorBody, retryDelayOf } from './upstream-error';

const headers = (entries: Record<string, string>) => new Headers(entries);
const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('rate-limit headers', () => {
  it('when a window still has requests left, then nothing is held', () => {
    expect(pauseFromRateLimitHeaders(headers({ 'x-ratelimit-remaining': '{"minute": 6}', 'x-ratelimit-reset': '30' }), NOW)).toBeNull();
    expect(pauseFromRateLimitHeaders(headers({}), NOW)).toBeNull();
  });

  it('when a window is spent, then the fleet holds until its reset, however the reset is written', () => {
    expect(pauseFromRateLimitHeaders(headers({ 'x-ratelimit-remaining': '{"minute": 0}', 'x-ratelimit-reset': '12' }), NOW)).toBe(12_000);
    expect(pauseFromRateLimitHeaders(headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 7) }), NOW)).toBe(
      7_000,
    );
    expect(
      pauseFromRateLimitHeaders(
        headers({ 'x-ratelimit-remaining': '{"minute": 0, "day": 40}', 'x-ratelimit-reset': '2026-11-24T12:00:05Z' }),
        NOW,
      ),
    ).toBe(5_000);
    expect(pauseFromRateLimitHeaders(headers({ 'x-ratelimit-remaining': '{"minute": 0}', 'x-ratelimit-reset': 'soon' }), NOW)).toBeNull();
  });
});

describe('google.rpc.RetryInfo', () => {
  it('when a 429 body carries a RetryInfo, then its retryDelay (a Duration, "3s" or "0.5s") is read', () => {
    const details = [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RATE_LIMIT_EXCEEDED' },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.5s' },
    ];
    expect(retryDelayOf(details)).toBe(500);
    expect(describeErrorBody({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', details } })).toMatchObject({ retryAfterMs: 500 });
    expect(retryDelayOf([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: 'later' }])).toBeNull();
    expect(describeErrorBody({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: [] } })).not.toHaveProperty('retryAfterMs');
  });
});

/**
 * The quota an upstream reports on every answer, read so the fleet slows down before it is refused
 * rather than after. People Data Labs sends `x-ratelimit-remaining` as a JSON object per window
 * (`{"minute": 6}`) and `x-ratelimit-reset` beside it (people-data-labs/UPSTREAM.md); a plain number
 * is read too.
 *
 * Returns how long to hold every request to this upstream (ms): only when a window has nothing
 * left, until its reset; null otherwise or when the headers cannot be read.
 */
export function pauseFromRateLimitHeaders(headers: Headers, now: number = Date.now()): number | null {
  const remaining = smallestRemaining(headers.get('x-ratelimit-remaining'));
  if (remaining === null || remaining > 0) return null;
  return resetDelay(headers.get('x-ratelimit-reset'), now);
}

function smallestRemaining(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  try {
    const parsed = JSON.parse(trimmed) as unknown;
    if (parsed === null || typeof parsed !== 'object') return null;
    const counts = Object.values(parsed as Record<string, unknown>).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return counts.length === 0 ? null : Math.min(...counts);
  } catch {
    return null;
  }
}

/**
 * No public source we could read says which form `x-ratelimit-reset` takes, so all three usual
 * ones are read: seconds from now, epoch seconds, or a date; null when it is none of them.
 */
function resetDelay(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const seconds = Number(trimmed);
    // An epoch timestamp (seconds since 1970) is far larger than any window's length.
    return seconds > 1_000_000_000 ? Math.max(0, seconds * 1000 - now) : seconds * 1000;
  }
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * RFC 7240 Prefer for the generation call: `wait=N` (seconds, 0..60) bounds the synchronous wait,
 * `respond-async` asks for 202 at once. Preferences we cannot honour are ignored, as the RFC says;
 * a wait above 60 is honoured as 60.
 */
export interface WaitPreference {
  waitMs: number;
  /** the Preference-Applied header value, or null when no preference was honoured */
  applied: string | null;
}

const MAX_WAIT_SECONDS = 60;

export function parsePrefer(header: string | undefined, defaultWaitMs: number): WaitPreference {
  if (!header) return { waitMs: defaultWaitMs, applied: null };
  const tokens = header
    .split(',')
    .map((part) => part.split(';')[0]!.trim().toLowerCase())
    .filter(Boolean);
  if (tokens.includes('respond-async')) return { waitMs: 0, applied: 'respond-async' };
  for (const token of tokens) {
    const match = /^wait\s*=\s*"?(\d{1,6})"?$/.exec(token);
    if (match) {
      const seconds = Math.min(MAX_WAIT_SECONDS, Number(match[1]));
      return { waitMs: seconds * 1000, applied: `wait=${seconds}` };
    }
  }
  return { waitMs: defaultWaitMs, applied: null };
}

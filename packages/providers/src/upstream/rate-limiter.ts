/** Paces the calls to one upstream. */
export interface RateLimiter {
  /**
   * Resolves when this caller may send one request. Rejects with the signal's reason when it
   * aborts, and with a ProviderError when no slot can be had before `deadline` (epoch ms).
   */
  acquire(signal: AbortSignal, deadline: number): Promise<void>;
  /** The upstream asked everyone to hold off (429 with Retry-After): no slot for `ms` from now. */
  pause(ms: number): Promise<void>;
}

/** For tests and for upstreams without a configured limit. */
export const unlimitedRateLimiter: RateLimiter = {
  acquire: (signal) => (signal.aborted ? Promise.reject(signal.reason) : Promise.resolve()),
  pause: () => Promise.resolve(),
};

/**
 * Requests waiting for their job's terminal status. One Redis subscription per API process feeds
 * `notify`; each request registers here instead of holding a BullMQ QueueEvents of its own.
 */
export class JobWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  notify(jobId: string): void {
    const wakers = this.waiting.get(jobId);
    if (!wakers) return;
    this.waiting.delete(jobId);
    for (const wake of wakers) wake();
  }

  /**
   * Resolves when the job is announced terminal, after `ms`, or when `signal` aborts (the client
   * went away), whichever comes first. `check` runs once after registering, closing the gap in which
   * the announcement could have come before the registration.
   */
  async wait(jobId: string, ms: number, check: () => Promise<boolean>, signal?: AbortSignal): Promise<void> {
    if (ms <= 0) return;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const wakers = this.waiting.get(jobId) ?? new Set();
    wakers.add(wake);
    this.waiting.set(jobId, wakers);
    const timer = setTimeout(wake, ms);
    signal?.addEventListener('abort', wake, { once: true });
    try {
      if (await check()) return;
      await woken;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', wake);
      wakers.delete(wake);
      if (wakers.size === 0 && this.waiting.get(jobId) === wakers) this.waiting.delete(jobId);
    }
  }

  /** Wakes everyone (at shutdown): each request then answers with the job's current state. */
  wakeAll(): void {
    for (const jobId of [...this.waiting.keys()]) this.notify(jobId);
  }
}

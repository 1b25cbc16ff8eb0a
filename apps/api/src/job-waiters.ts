/**
 * Requests waiting for their job's terminal status. One Redis subscription per API process feeds
 * `notify`; each request registers here instead of holding a BullMQ QueueEvents of its own.
 */
export interface Waiter {
  /**
   * Resolves when the job is announced terminal (also if that happened after `expect` and before
   * this call), after `ms`, or when `signal` aborts (the client went away), whichever comes first.
   */
  until(ms: number, signal?: AbortSignal): Promise<void>;
  /** stop listening; always call it (a waiter that was never awaited holds a map entry until then) */
  dispose(): void;
}

export class JobWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  notify(jobId: string): void {
    const wakers = this.waiting.get(jobId);
    if (!wakers) return;
    this.waiting.delete(jobId);
    for (const wake of wakers) wake();
  }

  /**
   * Registers interest in a job before anything could announce it: a request that registers before
   * its job is enqueued needs no read to close the gap between an early announcement and its wait.
   */
  expect(jobId: string): Waiter {
    let announced = false;
    let wake: () => void = () => (announced = true);
    const waker = () => wake();
    const wakers = this.waiting.get(jobId) ?? new Set();
    wakers.add(waker);
    this.waiting.set(jobId, wakers);
    const dispose = () => {
      wakers.delete(waker);
      if (wakers.size === 0 && this.waiting.get(jobId) === wakers) this.waiting.delete(jobId);
    };
    return {
      dispose,
      until: async (ms, signal) => {
        if (announced || ms <= 0 || signal?.aborted) return;
        const woken = new Promise<void>((resolve) => (wake = resolve));
        const timer = setTimeout(waker, ms);
        signal?.addEventListener('abort', waker, { once: true });
        try {
          await woken;
        } finally {
          clearTimeout(timer);
          signal?.removeEventListener('abort', waker);
        }
      },
    };
  }

  /** Wakes everyone (at shutdown): each request then answers with the job's current state. */
  wakeAll(): void {
    for (const jobId of [...this.waiting.keys()]) this.notify(jobId);
  }
}

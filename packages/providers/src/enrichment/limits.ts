/** A counting semaphore whose waits end with the signal's reason when the signal aborts. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Resolves to a release function (safe to call twice). */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw signal.reason;
    if (this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiters.indexOf(wake);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal.reason);
      };
      const wake = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.push(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return this.releaser();
  }

  get idle(): boolean {
    return this.active === 0 && this.waiters.length === 0;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // the slot passes straight to the next waiter, so a newcomer cannot overtake the queue
      const next = this.waiters.shift();
      if (next) next();
      else this.active--;
    };
  }
}

/** One semaphore per key (a hostname), dropped again when nobody uses it so the map does not grow. */
export class KeyedLimiter {
  private readonly semaphores = new Map<string, Semaphore>();

  constructor(private readonly perKey: number) {}

  async run<T>(key: string, signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    let semaphore = this.semaphores.get(key);
    if (!semaphore) {
      semaphore = new Semaphore(this.perKey);
      this.semaphores.set(key, semaphore);
    }
    try {
      const release = await semaphore.acquire(signal);
      try {
        return await task();
      } finally {
        release();
      }
    } finally {
      if (semaphore.idle && this.semaphores.get(key) === semaphore) this.semaphores.delete(key);
    }
  }
}

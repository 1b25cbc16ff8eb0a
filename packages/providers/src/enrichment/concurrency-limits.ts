import pLimit from 'p-limit';

/**
 * The kept `p-limit`, with what this service adds: a wait that ends with the signal's reason when
 * the signal aborts. A task whose signal aborted while it was queued never runs; once it runs it
 * keeps its slot until it ends (it gets the signal itself).
 */
export interface AbortableLimit {
  <T>(signal: AbortSignal, task: () => Promise<T>): Promise<T>;
  /** nothing running and nothing waiting */
  readonly idle: boolean;
}

export function abortableLimit(concurrency: number): AbortableLimit {
  const limit = pLimit(concurrency);
  const run = <T>(signal: AbortSignal, task: () => Promise<T>): Promise<T> => {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      limit(async () => {
        signal.removeEventListener('abort', onAbort);
        // rejected while it waited: give the slot straight back
        if (signal.aborted) return;
        try {
          resolve(await task());
        } catch (error) {
          reject(error);
        }
      }).catch(reject);
    });
  };
  return Object.defineProperty(run, 'idle', { get: () => limit.activeCount === 0 && limit.pendingCount === 0 }) as AbortableLimit;
}

/** One limit per key (a hostname), dropped again when nobody uses it so the map does not grow. */
export class KeyedLimiter {
  private readonly limits = new Map<string, AbortableLimit>();

  constructor(private readonly perKey: number) {}

  async run<T>(key: string, signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    let limit = this.limits.get(key);
    if (!limit) {
      limit = abortableLimit(this.perKey);
      this.limits.set(key, limit);
    }
    try {
      return await limit(signal, task);
    } finally {
      // p-limit counts a finished task out a few microtasks after its promise settles
      const used = limit;
      setImmediate(() => {
        if (used.idle && this.limits.get(key) === used) this.limits.delete(key);
      });
    }
  }

  get size(): number {
    return this.limits.size;
  }
}

/**
 * Small abort-aware timing helpers. Every wait in a provider must end the moment the job's signal
 * aborts (cancel, timeout, shutdown), with the signal's own reason, so the worker can tell why.
 */
import pLimit from 'p-limit';

/** Resolves after `ms`, or rejects with `signal.reason` as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Settles with `promise`, or rejects with `signal.reason` first if the signal aborts (the work itself is not stopped). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * A signal that aborts with the parent's reason, or on its own at `at` (epoch ms) with a
 * TimeoutError. `dispose` clears the timer so a finished step leaves nothing behind.
 */
export function signalUntil(parent: AbortSignal, at: number): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new DOMException('The step ran out of time', 'TimeoutError')),
    Math.max(0, at - Date.now()),
  );
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}

/** Runs `fn` over `items` with at most `limit` in flight (p-limit); results keep the input order. */
export async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const run = pLimit(Math.max(1, limit));
  return Promise.all(items.map((item, index) => run(() => fn(item, index))));
}

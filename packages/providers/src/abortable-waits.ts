import { raceAbort } from '@leadgen/network-guard';

export { raceAbort };
/**
 * The abort-aware waits every part of the providers uses (upstream calls, enrichment, the
 * sandbox). Every wait in a provider must end the moment the job's signal aborts (cancel,
 * timeout, shutdown), with the signal's own reason, so the worker can tell why.
 */

/** Resolves after `ms` (at once when it is not positive), or rejects with `signal.reason` as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
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

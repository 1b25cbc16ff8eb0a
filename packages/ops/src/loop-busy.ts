// How busy this process's event loop is, for the rules that hold one account back only while the process is busy:
// the worker's borrowed slots and account turns, the API's resting places (decision 050).

/** `busy` read again at most every `everyMs` (over the time since the read before); the last figure between reads. */
export function sampled(busy: () => number, everyMs: number): () => number {
  let last = 0;
  let at = performance.now();
  return () => {
    const now = performance.now();
    if (now - at >= everyMs) {
      last = busy();
      at = now;
    }
    return last;
  };
}

/** The event loop's utilisation between two calls (node:perf_hooks). */
export function loopBusy(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const delta = performance.eventLoopUtilization(now, last);
    last = now;
    return delta.utilization;
  };
}

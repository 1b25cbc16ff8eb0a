/**
 * `work`, or a rejection once `ms` have passed without an answer: for a store that is up but does
 * not answer (a partition TCP has not noticed yet), where the caller must not wait for the client
 * library's own timeouts (a readiness probe, a request's enqueue). The work itself is not stopped.
 */
export function answerWithin<T>(ms: number, work: Promise<T>, who = 'the dependency'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${who} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

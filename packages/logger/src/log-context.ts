import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The ids of the request or job a line is written in. Every line written inside one carries them,
 * taken from AsyncLocalStorage, so callers never pass them around.
 */
export interface LogContext {
  requestId?: string;
  jobId?: string;
  accountId?: string;
  source?: string;
  monitorId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

export function withLogContext<T>(context: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, fn);
}

export function currentLogContext(): LogContext {
  return storage.getStore() ?? {};
}

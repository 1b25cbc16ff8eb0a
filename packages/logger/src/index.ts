import { AsyncLocalStorage } from 'node:async_hooks';
import winston from 'winston';

/**
 * One JSON log line per event. Every line written inside a request or a job carries that
 * request's or job's ids, taken from AsyncLocalStorage, so callers never pass them around.
 */
export interface LogContext {
  requestId?: string;
  jobId?: string;
  accountId?: string;
  source?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

export function withLogContext<T>(context: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, fn);
}

export function currentLogContext(): LogContext {
  return storage.getStore() ?? {};
}

// Names whose values are secrets wherever they appear in log metadata.
const SECRET_KEY = /authorization|api[-_]?key|apikey|password|secret|token|cookie/i;
// Our own API keys and bearer tokens, should one slip into a message.
const SECRET_TEXT = /\b(lg_live_[0-9a-z]+|Bearer\s+[A-Za-z0-9._~+/=-]+)/g;

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(SECRET_TEXT, '[redacted]');
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: redact(value.message), stack: value.stack };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = SECRET_KEY.test(key) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

const addContext = winston.format((info) => {
  Object.assign(info, currentLogContext());
  for (const key of Object.keys(info)) {
    if (key !== 'level' && key !== 'timestamp') info[key] = redact(info[key]);
  }
  return info;
});

function level(): string {
  return process.env.LOG_LEVEL ?? 'info';
}

export const logger = winston.createLogger({
  level: level() === 'silent' ? 'error' : level(),
  silent: level() === 'silent',
  format: winston.format.combine(winston.format.timestamp(), addContext(), winston.format.json()),
  transports: [new winston.transports.Console({ stderrLevels: ['error'] })],
});

export type Logger = Pick<winston.Logger, 'error' | 'warn' | 'info' | 'debug'>;

/** Names the process in every line (api, worker, admin); set once by an entry point. */
export function setProcessName(name: string): void {
  logger.defaultMeta = { service: name };
}

export function setLogLevel(newLevel: string): void {
  logger.silent = newLevel === 'silent';
  if (newLevel !== 'silent') logger.level = newLevel;
}

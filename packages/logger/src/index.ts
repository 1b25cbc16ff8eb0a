import { AsyncLocalStorage } from 'node:async_hooks';
import { Writable } from 'node:stream';
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

const base = winston.createLogger({
  level: level() === 'silent' ? 'error' : level(),
  silent: level() === 'silent',
  format: winston.format.combine(winston.format.timestamp(), addContext(), winston.format.json()),
  transports: [new winston.transports.Console({ stderrLevels: ['error'] })],
});

// Fields a line owns. winston would append a meta `message` to the line's message and let a format's
// fields be overwritten, so a caller's `{ message }` is written as `meta_message` instead.
const RESERVED = new Set(['message', 'level', 'timestamp', 'service']);

export function safeMeta(meta: unknown): Record<string, unknown> {
  if (meta === undefined || meta === null) return {};
  if (meta instanceof Error) return { error: meta };
  if (typeof meta !== 'object') return { meta };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) out[RESERVED.has(key) ? `meta_${key}` : key] = value;
  return out;
}

type LogMethod = (message: string, meta?: object) => void;

// One info object built here: winston's (level, message, meta) form drops the metadata of a message
// holding a `%s`, and appends a meta message to the line's own.
const write =
  (lvl: string): LogMethod =>
  (message, meta) => {
    // A line below the level is dropped before it is built: winston would run every format on it first.
    if (base.silent || !base.isLevelEnabled(lvl)) return;
    base.log({ ...safeMeta(meta), level: lvl, message: String(message) });
  };

export const logger = { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };

/** Names the process in every line (api, worker, admin); set once by an entry point. */
export function setProcessName(name: string): void {
  base.defaultMeta = { service: name };
}

export function setLogLevel(newLevel: string): void {
  base.silent = newLevel === 'silent';
  if (newLevel !== 'silent') base.level = newLevel;
}

/**
 * Every line written until `stop()`, parsed, instead of to the console (for tests: jest's console
 * cannot be intercepted once winston has bound it).
 */
export function captureLogLines(): { lines: Array<Record<string, unknown>>; stop(): void } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const transport = new winston.transports.Stream({ stream: sink });
  const others = base.transports.filter((t) => !t.silent);
  for (const t of others) t.silent = true;
  base.add(transport);
  return {
    lines,
    stop: () => {
      base.remove(transport);
      for (const t of others) t.silent = false;
    },
  };
}

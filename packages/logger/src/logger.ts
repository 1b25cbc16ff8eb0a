import winston from 'winston';
import { currentLogContext } from './log-context';
import { redact } from './redaction';

/** What LOG_LEVEL accepts: winston's npm levels down to `debug`, and `silent`. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'debug', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const addContext = winston.format((info) => {
  Object.assign(info, currentLogContext());
  for (const key of Object.keys(info)) {
    if (key !== 'level' && key !== 'timestamp') info[key] = redact(info[key]);
  }
  return info;
});

// `info` until an entry point applies the validated configuration (setLogLevel(config.log.level)),
// so the logger works before the configuration is read and a failure to read it is still written.
export const base = winston.createLogger({
  level: 'info',
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

/** One JSON line per event, on stdout (errors on stderr), with the ids of the request or job it is written in. */
export const logger = { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };

/** Names the process in every line (api, worker, admin); set once by an entry point. */
export function setProcessName(name: string): void {
  base.defaultMeta = { service: name };
}

/** Set by each entry point from the validated configuration (`config.log.level`). */
export function setLogLevel(newLevel: LogLevel): void {
  base.silent = newLevel === 'silent';
  if (newLevel !== 'silent') base.level = newLevel;
}

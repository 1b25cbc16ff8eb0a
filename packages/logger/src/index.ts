export * from './log-context';
export { redact } from './redaction';
export { LOG_LEVELS, logger, safeMeta, setLogLevel, setProcessName, type LogLevel } from './logger';
export * from './log-capture';

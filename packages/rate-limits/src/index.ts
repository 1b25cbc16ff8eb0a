// Rate limits kept in Redis so every process shares them: the API's fixed windows (per account, and the
// board's login throttle) and the workers' token buckets per upstream. One EVALSHA a check.
export * from './rate-limit-scripts';

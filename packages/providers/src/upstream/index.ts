export * from './fleet-rate-limiter';
export * from './rate-limiter';
export * from './retry-policy';
export * from './upstream-client';
export * from './upstream-error';

export * from './abort';
export * from './enrich-leads';
export * from './fleet-rate-limiter';
export * from './rate-limiter';
export * from './retry';
export * from './upstream-client';
export * from './upstream-error';

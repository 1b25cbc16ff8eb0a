export * from './lead-provider';
export * from './registry';
export { onUpstreamRetry, type UpstreamRetry } from './upstream/upstream-client';

export * from './provider';
export * from './registry';
export { onUpstreamRetry, type UpstreamRetry } from './http/upstream-client';

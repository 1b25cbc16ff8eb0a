export * from './lead-provider';
export * from './registry';
export { countUpstreamCalls, onUpstreamRetry, type UpstreamRetry } from './upstream/upstream-client';
export * from './area-survey';

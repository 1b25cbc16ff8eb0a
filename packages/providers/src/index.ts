export * from './lead-provider';
export * from './registry';
export { onUpstreamRetry, type UpstreamRetry } from './upstream/upstream-client';
// The crawler's SSRF guard, which webhook deliveries use too (decision 016).
export { isForbiddenAddress } from './enrichment/address-guard';
export { FetchError, resolveChecked, type LookupFn, type NetworkPolicy } from './enrichment/safe-fetch';
export { resolveWebhookTarget, systemLookup, webhookNetworkPolicy, type ResolvedAddress } from './webhook-target';

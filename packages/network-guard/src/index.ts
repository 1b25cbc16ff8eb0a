// What the service may connect to on behalf of a third-party URL (SSRF): the crawler's website fetches
// and webhook deliveries (decisions 015 and 016).
export { isForbiddenAddress } from './address-guard';
export {
  AgentPool,
  FetchError,
  raceAbort,
  resolveChecked,
  safeFetch,
  type FetchedResponse,
  type FetchErrorCode,
  type LookupFn,
  type NetworkPolicy,
  type SafeFetchOptions,
} from './safe-fetch';
export { resolveWebhookTarget, systemLookup, webhookNetworkPolicy, type ResolvedAddress } from './webhook-target';

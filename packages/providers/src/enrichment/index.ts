// Website enrichment: emails and social profiles read from a business's own website, for the
// providers whose upstream APIs give neither (google_maps, shopify).
export { createWebsiteEnricher, DEFAULT_USER_AGENT } from './website-enricher';
export type { EnrichmentHints, EnrichmentOptions, EnrichmentProvenance, EnrichmentResult, WebsiteEnricher } from './website-enricher';
export { extractSocialProfiles } from './extract-social';
export type { SocialProfiles } from './extract-social';
export { parseRobots } from './robots';
export type { RobotsRules } from './robots';
export { enrichLeads, enrichOneLead, type EnrichmentStep, type WebsiteEnricherLike } from './enrich-leads';

import type { Config } from '@leadgen/config';
import type { GenerationRequest } from '@leadgen/domain';
import { checkGoogleFieldsTier } from './google-fields-check';
import { checkShopifyCategory } from './shopify-category-check';

/**
 * What a request must satisfy beyond its schema for the upstreams this service is configured with (a 400
 * before any job or call): a Store Leads category, no filter on a Google field the configured tier omits.
 */
export function checkServableRequest(config: Config, request: GenerationRequest): void {
  checkShopifyCategory(config, request);
  checkGoogleFieldsTier(config, request);
}

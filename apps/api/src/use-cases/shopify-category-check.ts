import type { Config } from '@leadgen/config';
import { errors, type GenerationRequest, matchCategoryPath, STORELEADS_CATEGORY_PATHS } from '@leadgen/domain';

/**
 * Where Store Leads serves shopify (its key is configured), a category must name one of its
 * published category paths: a guessed path filters nothing or everything, so the request is refused
 * before a job exists (400, naming the accepted categories) rather than run unfiltered. The sandbox
 * takes any category.
 */
export function checkShopifyCategory(config: Config, request: GenerationRequest): void {
  if (request.source !== 'shopify' || config.providers.storeLeads.apiKey === null) return;
  if (matchCategoryPath(request.category) !== null) return;
  const accepted = STORELEADS_CATEGORY_PATHS.map((path) => path.slice(1).split('/').join(' > ')).join('; ');
  throw errors.validation([
    { pointer: '#/category', detail: `category names no Store Leads category this service can filter on; accepted: ${accepted}` },
  ]);
}

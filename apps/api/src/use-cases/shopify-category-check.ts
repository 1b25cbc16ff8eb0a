import type { Config } from '@leadgen/config';
import { categoryLabel, errors, type GenerationRequest, matchCategoryPaths, nearestCategoryPaths } from '@leadgen/domain';

/**
 * Where Store Leads serves shopify (its key is configured), a category must name one or more of
 * its category paths: a guessed path filters nothing or everything, so the request is refused
 * before a job exists (400, naming the three nearest paths and where the whole list is) rather
 * than run unfiltered. The sandbox takes any category.
 */
export function checkShopifyCategory(config: Config, request: GenerationRequest): void {
  if (request.source !== 'shopify' || config.providers.storeLeads.apiKey === null) return;
  if (matchCategoryPaths(request.category).length > 0) return;
  const nearest = nearestCategoryPaths(request.category, 3)
    .map((path) => `${path} (${categoryLabel(path)})`)
    .join('; ');
  throw errors.validation([
    {
      pointer: '#/category',
      detail: `category names no Store Leads category; nearest: ${nearest}; every category: GET /api/v1/meta/shopify-categories`,
    },
  ]);
}

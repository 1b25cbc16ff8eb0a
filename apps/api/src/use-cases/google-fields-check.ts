import type { Config } from '@leadgen/config';
import { ENTERPRISE_TIER_FILTERS, errors, type GenerationRequest, type GoogleMapsFilters } from '@leadgen/domain';

/**
 * Where Google serves google_maps with GOOGLE_PLACES_FIELDS=pro, a filter on a field of the Enterprise tier
 * would leave out every place (no lead carries the field), so the job would page through Google's 60 places,
 * paid, to deliver nothing: the request is refused before a job exists, every such filter named with its
 * pointer (`at` is where the request sits in the body: `#/request` in an area search). The sandbox, which
 * serves every field, takes them.
 */
export function checkGoogleFieldsTier(config: Config, request: GenerationRequest, at = '#'): void {
  const google = config.providers.googlePlaces;
  if (request.source !== 'google_maps' || google.apiKey === null || google.fields !== 'pro' || !request.filters) return;
  const given = Object.keys(request.filters) as Array<keyof GoogleMapsFilters>;
  const refused = given.filter((name) => ENTERPRISE_TIER_FILTERS[name] !== undefined);
  if (refused.length === 0) return;
  throw errors.validation(
    refused.map((name) => ({
      pointer: `${at}/filters/${name}`,
      detail: `filters.${name} needs Google's ${ENTERPRISE_TIER_FILTERS[name]}, an Enterprise-tier field this service does not ask for (GOOGLE_PLACES_FIELDS=pro)`,
    })),
  );
}

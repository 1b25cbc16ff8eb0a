import { areaContains, type GenerationRequest, type GoogleMapsFilters, tileOwns } from '@leadgen/domain';
import { ProviderError, type ProviderLead, type ProviderPage, type SearchContext } from '../lead-provider';
import type { EnrichmentStep } from '../enrichment';
import { type UpstreamClient, UpstreamError } from '../upstream';
import { placeToLead } from './google-places-mapping';
import { passesFilters, withFinish } from './page-finish';
import { MAX_RESULTS_PER_QUERY, PAGE_SIZE, searchText, type TextSearchBody } from './places-api';
import { isLatLng, queryBody } from './search-areas';

/** Where a tile's search stands: its page token and what it listed so far (a replacement worker resumes there). */
interface TileCursor {
  pageToken: string | null;
  found: number;
  outside: number;
}

const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null);

function decodeTileCursor(cursor: string | null): TileCursor {
  const start = { pageToken: null, found: 0, outside: 0 };
  if (cursor === null) return start;
  try {
    const raw = JSON.parse(cursor) as Record<string, unknown>;
    const [found, outside] = [count(raw.found), count(raw.outside)];
    if (raw.v !== 'tile' || found === null || outside === null || typeof raw.pageToken !== 'string') return start;
    return { pageToken: raw.pageToken, found, outside };
  } catch {
    return start;
  }
}

/**
 * An area search's tile (decision 039): "<category> [keyword]" restricted to the tile's rectangle (Google's
 * `locationRestriction`: no place outside it is returned), every page of it (at most 60 places). A place is
 * delivered only when its `location` is inside the area (the polygon, not its bounding box) and in the tile's
 * own half-open cell (a place on an edge two tiles share is delivered by one); a place outside the area, or
 * without a location (a pure service-area business: Google withholds it), is counted in `outsideArea` and
 * neither delivered nor billed. The last page reports the tile: saturated when it listed Google's maximum.
 */
export interface TileSearchOptions {
  client: UpstreamClient;
  enrichment: EnrichmentStep | null;
  /** the field mask of GOOGLE_PLACES_FIELDS (decision 038); `places.location`, which the clipping reads, is in every tier */
  mask: string;
  /** the request's filters Google applies itself (`serverSideFilters`), sent on every page */
  server: Pick<TextSearchBody, 'minRating' | 'priceLevels'>;
}

/**
 * The filters and the website visit are those of the city search (google-places-provider.ts, decisions 037 and
 * 038): checked before the visit except the email, handed over with a `finish`; a filtered place still counts
 * in what the tile listed (`found`), since the split is about what Google lists.
 */
export async function* searchTile(
  options: TileSearchOptions,
  request: GenerationRequest,
  context: SearchContext,
): AsyncGenerator<ProviderPage> {
  const { client, mask } = options;
  const filters = request.filters as GoogleMapsFilters | undefined;
  const { signal, deadline, area } = context;
  const tile = request.tile!;
  if (area === undefined) throw new ProviderError('provider_error', 'google_places: an area tile without its area');
  let state = decodeTileCursor(context.cursor);
  let tokenFromCursor = state.pageToken !== null;
  const first = { ...queryBody(request, tile.rect, PAGE_SIZE), ...options.server };
  for (;;) {
    // Google requires every parameter but the token to repeat unchanged on later pages.
    const body = state.pageToken === null ? first : { ...first, pageToken: state.pageToken };
    let page;
    try {
      page = await searchText(client, body, signal, deadline, mask);
    } catch (error) {
      // A token restored from a cursor may have expired: the tile is asked again from its first page (the batch deduplicates).
      if (tokenFromCursor && error instanceof UpstreamError && error.upstreamStatus === 400 && error.reason === 'provider_error') {
        tokenFromCursor = false;
        state = { pageToken: null, found: 0, outside: 0 };
        continue;
      }
      throw error;
    }
    tokenFromCursor = false;
    const retrievedAt = new Date().toISOString();
    let { found, outside } = state;
    const leads: ProviderLead[] = [];
    let filtered = 0;
    for (const place of page.places) {
      found += 1;
      if (!isLatLng(place.location) || !areaContains(area, place.location)) {
        outside += 1;
        continue;
      }
      if (!tileOwns(area, tile.rect, place.location)) continue;
      const mapped = placeToLead(place, request.category, request.state, retrievedAt);
      if (mapped === null) continue;
      if (passesFilters(mapped, { ...filters, requireEmail: undefined })) leads.push(mapped);
      else filtered += 1;
    }
    const handed = withFinish(leads, filtered, filters, options.enrichment, deadline);
    if (page.nextPageToken !== null) {
      state = { pageToken: page.nextPageToken, found, outside };
      yield { ...handed, cursor: JSON.stringify({ v: 'tile', ...state }) };
      continue;
    }
    yield { ...handed, cursor: null, tile: { found, outsideArea: outside, saturated: found >= MAX_RESULTS_PER_QUERY } };
    return;
  }
}

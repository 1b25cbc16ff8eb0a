import type { GenerationRequest, GoogleMapsFilters, Rect } from '@leadgen/domain';
import type { LeadProvider, ProviderLead, ProviderPage, SearchContext } from '../lead-provider';
import type { EnrichmentStep } from '../enrichment';
import { type UpstreamClient, UpstreamError } from '../upstream';
import { googlePriceLevel, placeToLead } from './google-places-mapping';
import { type FieldTier, fieldMask, MAX_RESULTS_PER_QUERY, PAGE_SIZE, searchText, type TextSearchBody } from './places-api';
import { searchTile } from './tile-search';
import { passesFilters, withFinish } from './page-finish';
import { extend, isLatLng, isRect, MAX_AREA_QUERIES, quarters, queryBody, searchArea } from './search-areas';

export interface GooglePlacesProviderOptions {
  /** an UpstreamClient for GOOGLE_PLACES_BASE_URL carrying X-Goog-Api-Key */
  client: UpstreamClient;
  /** null: leads are delivered as Google describes them */
  enrichment: EnrichmentStep | null;
  /** GOOGLE_PLACES_FIELDS: the Text Search SKU the field mask incurs (default enterprise) */
  fields?: FieldTier;
}

/**
 * The request's filters Google applies itself, so fewer places are paid for: `minRating` in Google's 0.5
 * steps (rounded down: the worker checks the exact value) and `priceLevels`. Sent on every page of a query,
 * since a page token is valid only with the other parameters repeated unchanged.
 */
export function serverSideFilters(filters: GoogleMapsFilters | undefined): Pick<TextSearchBody, 'minRating' | 'priceLevels'> {
  const out: Pick<TextSearchBody, 'minRating' | 'priceLevels'> = {};
  if (filters?.minRating !== undefined && filters.minRating > 0) out.minRating = Math.floor(filters.minRating * 2) / 2;
  if (filters?.priceLevels !== undefined) out.priceLevels = filters.priceLevels.map(googlePriceLevel);
  return out;
}

/**
 * Cursor (JSON, v2): the query to run next and where in it (search-areas.ts says how areas are chosen).
 * A replacement worker resumes exactly there, without asking Google again for what it knew.
 */
export interface CursorState {
  /** null: the city query; else the rectangle the query is restricted to */
  area: Rect | null;
  /** the page token to continue the query with (null: its first page) */
  pageToken: string | null;
  /** rectangles still to ask, in order */
  pending: Rect[];
  /** the bounds of the city query's results so far (the rectangle split after it) */
  bounds: Rect | null;
  /** places the current query returned so far, and how many of them were new */
  returned: number;
  fresh: number;
  /** rectangle queries started so far */
  asked: number;
}

const START: CursorState = { area: null, pageToken: null, pending: [], bounds: null, returned: 0, fresh: 0, asked: 0 };

export function encodeCursor(state: CursorState): string {
  return JSON.stringify({ v: 2, ...state });
}

const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null);

/** An unreadable cursor (another version, corruption) restarts the search: the worker deduplicates. */
export function decodeCursor(cursor: string | null): CursorState {
  if (cursor === null) return START;
  try {
    const raw = JSON.parse(cursor) as Record<string, unknown>;
    const [returned, fresh, asked] = [count(raw.returned), count(raw.fresh), count(raw.asked)];
    if (raw.v !== 2 || returned === null || fresh === null || asked === null || !Array.isArray(raw.pending) || !raw.pending.every(isRect))
      return START;
    if (raw.area !== null && !isRect(raw.area)) return START;
    if (raw.bounds !== null && !isRect(raw.bounds)) return START;
    return {
      area: raw.area as Rect | null,
      pageToken: typeof raw.pageToken === 'string' ? raw.pageToken : null,
      pending: raw.pending as Rect[],
      bounds: raw.bounds as Rect | null,
      returned,
      fresh,
      asked,
    };
  } catch {
    return START;
  }
}

/**
 * The query after `state`'s finished one, or null when no call could add a place: the city query
 * listed fewer than Google's 60 (that was every match), a rectangle brought nothing new (its
 * quarters would only repeat it), or the rectangles ran out.
 */
export function nextQuery(state: CursorState): CursorState | null {
  const saturated = state.returned >= MAX_RESULTS_PER_QUERY;
  const pending = [...state.pending];
  if (state.area === null) {
    if (!saturated || state.bounds === null) return null;
    pending.push(...quarters(searchArea(state.bounds)));
  } else if (saturated && state.fresh > 0) {
    pending.push(...quarters(state.area));
  }
  const area = pending.shift();
  if (area === undefined || state.asked >= MAX_AREA_QUERIES) return null;
  return { ...state, area, pending, pageToken: null, returned: 0, fresh: 0, asked: state.asked + 1 };
}

export function createGooglePlacesProvider(options: GooglePlacesProviderOptions): LeadProvider<'google_maps'> {
  return {
    source: 'google_maps',
    name: 'google_places',
    // An area search's tile is one restricted query of its own (tile-search.ts); anything else, the city search.
    search: (request, context) =>
      request.tile !== undefined
        ? searchTile(
            {
              client: options.client,
              enrichment: options.enrichment,
              mask: fieldMask(options.fields ?? 'enterprise'),
              server: serverSideFilters(request.filters as GoogleMapsFilters | undefined),
            },
            request,
            context,
          )
        : search(options, request, context),
  };
}

async function* search(
  options: GooglePlacesProviderOptions,
  request: GenerationRequest,
  context: SearchContext,
): AsyncGenerator<ProviderPage> {
  const { signal, deadline } = context;
  const filters = request.filters as GoogleMapsFilters | undefined;
  const mask = fieldMask(options.fields ?? 'enterprise');
  const server = serverSideFilters(filters);
  let state: CursorState | null = decodeCursor(context.cursor);
  // A stored page token may have expired by the time a replacement worker uses it.
  let tokenFromCursor = state.pageToken !== null;
  const seen = new Set<string>();
  while (state !== null) {
    const first = { ...queryBody(request, state.area, PAGE_SIZE), ...server };
    // Google requires every parameter but the token to repeat unchanged on later pages.
    const body = state.pageToken === null ? first : { ...first, pageToken: state.pageToken };
    let page;
    try {
      page = await searchText(options.client, body, signal, deadline, mask);
    } catch (error) {
      if (tokenFromCursor && error instanceof UpstreamError && error.upstreamStatus === 400 && error.reason === 'provider_error') {
        tokenFromCursor = false;
        state = { ...state, pageToken: null, returned: 0, fresh: 0 };
        continue;
      }
      throw error;
    }
    tokenFromCursor = false;

    const retrievedAt = new Date().toISOString();
    let { bounds, fresh } = state;
    const leads: ProviderLead[] = [];
    let filtered = 0;
    // Filters before the website visit (no crawl for a place that will not be delivered), except the
    // email, which the visit may find; a filtered place is counted, never delivered, never billed.
    for (const place of page.places) {
      if (state.area === null && isLatLng(place.location)) bounds = extend(bounds, place.location);
      if (seen.has(place.id)) continue;
      seen.add(place.id);
      fresh += 1;
      const mapped = placeToLead(place, request.category, request.state, retrievedAt);
      if (mapped === null) continue;
      if (passesFilters(mapped, { ...filters, requireEmail: undefined })) leads.push(mapped);
      else filtered += 1;
    }
    const done: CursorState = { ...state, bounds, fresh, returned: state.returned + page.places.length };
    const next = page.nextPageToken !== null ? { ...done, pageToken: page.nextPageToken } : nextQuery(done);
    yield { ...withFinish(leads, filtered, filters, options.enrichment, deadline), cursor: next === null ? null : encodeCursor(next) };
    state = next;
  }
}

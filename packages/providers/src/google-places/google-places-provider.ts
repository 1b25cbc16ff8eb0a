import type { GenerationRequest } from '@leadgen/domain';
import type { LeadProvider, ProviderLead, ProviderPage, SearchContext } from '../lead-provider';
import { enrichLeads, type EnrichmentStep } from '../enrichment';
import { type UpstreamClient, UpstreamError } from '../upstream';
import { placeToLead } from './google-places-mapping';
import { PAGE_SIZE, searchText } from './places-api';
import { type Area, areaOf, isLatLng, VARIANT_COUNT, variantBody } from './variants';

export interface GooglePlacesProviderOptions {
  /** an UpstreamClient for GOOGLE_PLACES_BASE_URL carrying X-Goog-Api-Key */
  client: UpstreamClient;
  /** null: leads are delivered as Google describes them */
  enrichment: EnrichmentStep | null;
}

/**
 * Cursor (JSON): `{ v: 1, variant, pageToken, area }`: the variant to run next, the page token to
 * continue it with (null: from its first page), and the area learnt from variant 0's first page
 * (needed by the sub-area variants, so a replacement worker does not have to ask again).
 */
interface CursorState {
  variant: number;
  pageToken: string | null;
  area: Area | null;
}

const START: CursorState = { variant: 0, pageToken: null, area: null };

export function encodeCursor(state: CursorState): string {
  return JSON.stringify({ v: 1, ...state });
}

/** An unreadable cursor (another version, corruption) restarts the search: the worker deduplicates. */
export function decodeCursor(cursor: string | null): CursorState {
  if (cursor === null) return START;
  try {
    const raw = JSON.parse(cursor) as Record<string, unknown>;
    if (raw.v !== 1 || typeof raw.variant !== 'number' || !Number.isInteger(raw.variant) || raw.variant < 0) return START;
    const area = raw.area as Record<string, unknown> | null | undefined;
    return {
      variant: raw.variant,
      pageToken: typeof raw.pageToken === 'string' ? raw.pageToken : null,
      area: area && isLatLng(area.center) && typeof area.radius === 'number' ? { center: area.center, radius: area.radius } : null,
    };
  } catch {
    return START;
  }
}

/** The first variant after `state`'s that can be run, or null when the variants are exhausted. */
function nextVariant(request: GenerationRequest, state: CursorState): CursorState | null {
  for (let variant = state.variant + 1; variant < VARIANT_COUNT; variant++) {
    if (variantBody(request, variant, state.area, PAGE_SIZE) !== null) return { ...state, variant, pageToken: null };
  }
  return null;
}

export function createGooglePlacesProvider(options: GooglePlacesProviderOptions): LeadProvider<'google_maps'> {
  return {
    source: 'google_maps',
    name: 'google_places',
    search: (request, context) => search(options, request, context),
  };
}

async function* search(options: GooglePlacesProviderOptions, request: GenerationRequest, context: SearchContext): AsyncGenerator<ProviderPage> {
  const { signal, deadline } = context;
  let state: CursorState | null = decodeCursor(context.cursor);
  // A stored page token may have expired by the time a replacement worker uses it.
  let tokenFromCursor = state.pageToken !== null;
  const seen = new Set<string>();
  while (state !== null) {
    const first = variantBody(request, state.variant, state.area, PAGE_SIZE);
    if (first === null) {
      state = nextVariant(request, state);
      continue;
    }
    // Google requires every parameter but the token to repeat unchanged on later pages.
    const body = state.pageToken === null ? first : { ...first, pageToken: state.pageToken };
    let page;
    try {
      page = await searchText(options.client, body, signal, deadline);
    } catch (error) {
      if (tokenFromCursor && error instanceof UpstreamError && error.upstreamStatus === 400 && error.reason === 'provider_error') {
        tokenFromCursor = false;
        state = { ...state, pageToken: null };
        continue;
      }
      throw error;
    }
    tokenFromCursor = false;
    if (state.variant === 0 && state.pageToken === null && state.area === null) state = { ...state, area: areaOf(page.places) };

    const leads: ProviderLead[] = [];
    for (const place of page.places) {
      const mapped = placeToLead(place, request.category);
      if (mapped === null || seen.has(mapped.dedupKey)) continue;
      seen.add(mapped.dedupKey);
      leads.push(mapped);
    }
    if (options.enrichment) await enrichLeads(leads.map((l) => l.lead), options.enrichment, signal, deadline);

    let next: CursorState | null;
    if (page.nextPageToken !== null) next = { ...state, pageToken: page.nextPageToken };
    // Variant 0 ran out before filling its last page: it listed every match there is.
    else if (state.variant === 0 && page.places.length < PAGE_SIZE) next = null;
    else next = nextVariant(request, state);
    yield { leads, cursor: next === null ? null : encodeCursor(next) };
    state = next;
  }
}

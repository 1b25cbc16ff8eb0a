import type { GenerationRequest, Lead, ResolvedArea, Source } from '@leadgen/domain';

/** One lead as a provider hands it over, with the key that makes it unique within a result set. */
export interface ProviderLead {
  /** place id (google_maps), profile URL (linkedin) or store domain (shopify) */
  dedupKey: string;
  lead: Lead;
}

export interface ProviderPage {
  leads: ProviderLead[];
  /**
   * Where to resume after this page (an opaque string the provider understands), or null when the
   * provider has nothing after it. Stored with the page's commit, so a replacement worker resumes there.
   */
  cursor: string | null;
  /** an area search's tile (request.tile), on its last page: what its search listed (decision 039) */
  tile?: TileReport;
}

/** What one tile's search came to: the worker records it and splits a saturated tile. */
export interface TileReport {
  /** places the search listed (Google lists at most 60 for one query) */
  found: number;
  /** of those, places outside the area, or whose location is not given: neither delivered nor billed */
  outsideArea: number;
  /** it listed the documented maximum: there may be more places in the tile than one query shows */
  saturated: boolean;
}

export interface SearchContext {
  /** aborted when the job is cancelled, times out, or the worker shuts down */
  signal: AbortSignal;
  /** the cursor of the last committed page, or null to start from the beginning */
  cursor: string | null;
  /** epoch ms by which the job must end (the job's time budget) */
  deadline: number;
  /** an area search's area (its batch's), for a request with a tile: places outside it are clipped */
  area?: ResolvedArea;
}

/**
 * A source's adapter. `search` yields pages until the source is exhausted; the worker stops
 * iterating once it has enough leads (so a generator must not rely on running to the end).
 * Failures are thrown as ProviderError; an aborted signal ends the iteration with the signal's reason.
 */
export interface LeadProvider<S extends Source = Source> {
  readonly source: S;
  /** shown in every job body: "sandbox", "google_places", "people_data_labs", "storeleads" */
  readonly name: string;
  search(request: GenerationRequest, context: SearchContext): AsyncIterable<ProviderPage>;
}

export type ProviderFailure = 'provider_error' | 'provider_unauthorized';

export class ProviderError extends Error {
  constructor(
    readonly reason: ProviderFailure,
    message: string,
    /** the upstream's HTTP status, when there was one */
    readonly upstreamStatus?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export type ProviderRegistry = { [S in Source]: LeadProvider<S> };

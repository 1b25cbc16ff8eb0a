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
  /**
   * What each lead still needs before it may be committed (its website read, its addresses verified), or
   * absent when the leads are final as listed. The worker calls it for the leads it still needs, as many at
   * once as it needs, while it already asks for the next page (decision 037); false: a filter left the lead
   * out (requiredChannels, or a request filter decided only after the website, such as requireEmail): it is
   * neither delivered nor billed, and the worker counts it in the job's `skipped.filtered` (decision 038). It
   * completes the lead in place; it throws only the signal's reason once the signal aborts, or a
   * ProviderError that must end the job.
   */
  finish?: LeadFinisher;
  /**
   * Leads of this page the request's filters left out before it was handed over (decision 038): not among
   * `leads`, neither delivered nor billed, counted in the job's `skipped.filtered`. Absent: none.
   */
  filtered?: number;
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

export type LeadFinisher = (row: ProviderLead, signal: AbortSignal) => Promise<boolean>;

/**
 * A page as it was before decision 037: every lead finished (at most `concurrency` at once) and the dropped
 * ones left out, counted with the page's own `filtered`. For callers that want a page as a whole (tests, the
 * bench's verification sections); the worker schedules each lead itself.
 */
export async function finishedPage(page: ProviderPage, signal: AbortSignal, concurrency = 8): Promise<ProviderPage> {
  const finish = page.finish;
  if (!finish) return page;
  const kept = new Array<boolean>(page.leads.length).fill(false);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < page.leads.length) {
      const index = next++;
      kept[index] = await finish(page.leads[index]!, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, page.leads.length)) }, lane));
  const leads = page.leads.filter((_row, index) => kept[index]);
  const filtered = (page.filtered ?? 0) + page.leads.length - leads.length;
  const { finish: _finish, filtered: _filtered, ...rest } = page;
  return { ...rest, leads, ...(filtered > 0 ? { filtered } : {}) };
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
 * A source's adapter. `search` yields pages until the source is exhausted, each as soon as the upstream
 * answered it (what each lead still needs is the page's `finish`); the worker asks for the next page while it
 * finishes earlier leads and stops iterating once it has enough in flight (so a generator must not rely on
 * running to the end, and must not start the next upstream call before it is asked for).
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

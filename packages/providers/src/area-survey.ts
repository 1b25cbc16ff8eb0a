import type { Config } from '@leadgen/config';
import {
  areaContains,
  canSplit,
  initialTiles,
  splitTile,
  tileOwns,
  tileRelation,
  type GenerationRequest,
  type GoogleMapsFilters,
  type LatLng,
  type Rect,
  type ResolvedArea,
  type Tile,
} from '@leadgen/domain';
import { closeRedis, redisConnection, redisKeys, type RedisClient } from '@leadgen/queue';
import { serverSideFilters } from './google-places/google-places-provider';
import { MAX_RESULTS_PER_QUERY, PAGE_SIZE, searchText } from './google-places/places-api';
import { isLatLng, isRect, queryBody } from './google-places/search-areas';
import { placeIdsIn, sandboxViewport, SANDBOX_TILE_MAX } from './sandbox/sandbox-area';
import { FleetRateLimiter, UpstreamClient } from './upstream';

/**
 * What an area search asks of its source before any lead is fetched (decision 039): a place name's viewport,
 * and, for a quote, how many places each tile lists, with the cheapest field mask that answers it.
 *
 * Google's masks (https://developers.google.com/maps/documentation/places/web-service/usage-and-billing; a
 * request is billed at the costliest SKU of its mask): `places.id` alone is the Text Search Essentials (IDs Only)
 * SKU, listed at 0.00 USD per 1,000 calls; `places.location` and `places.viewport` are in the Text Search Pro SKU
 * (formerly "Basic", 32.00 USD per 1,000 in its first volume tier). So a tile wholly inside the area is counted
 * with ids only, a tile across its edge with ids and locations (its places must be clipped), and a place name's
 * viewport costs one Pro call.
 */
export interface AreaSurveyor {
  readonly name: 'google_places' | 'sandbox';
  /** the viewport of a named place (`{ place: "Chicago, US" }`), or null when the source knows no such place */
  resolvePlace(place: string, regionCode: string, signal: AbortSignal, deadline: number): Promise<Rect | null>;
  /** one tile's listing: every place it lists (at most 60), with its location where the tile crosses the area's edge */
  listTile(request: GenerationRequest, tile: Tile, withLocations: boolean, signal: AbortSignal, deadline: number): Promise<TileListing>;
}

export interface TileListing {
  places: Array<{ id: string; location: LatLng | null }>;
  /** upstream calls the listing took, by mask */
  calls: { idsOnly: number; withLocation: number };
}

const IDS_ONLY_MASK = 'places.id,nextPageToken';
const LOCATION_MASK = 'places.id,places.location,nextPageToken';
const VIEWPORT_MASK = 'places.id,places.viewport';

function googleSurveyor(client: UpstreamClient): AreaSurveyor {
  return {
    name: 'google_places',
    async resolvePlace(place, regionCode, signal, deadline) {
      const page = await searchText(client, { textQuery: place, pageSize: 1, regionCode }, signal, deadline, VIEWPORT_MASK);
      const viewport = page.places[0]?.viewport;
      return isRect(viewport) ? viewport : null;
    },
    async listTile(request, tile, withLocations, signal, deadline) {
      const mask = withLocations ? LOCATION_MASK : IDS_ONLY_MASK;
      // The filters Google applies itself (decision 038) are sent as the tile's run will send them, so the listing
      // matches the run's; the filters checked on the lead cannot be seen in an IDs-only listing: the quote is then an upper bound.
      const first = { ...queryBody(request, tile.rect, PAGE_SIZE), ...serverSideFilters(request.filters as GoogleMapsFilters | undefined) };
      const places: TileListing['places'] = [];
      const calls = { idsOnly: 0, withLocation: 0 };
      let token: string | null = null;
      do {
        const page = await searchText(client, token === null ? first : { ...first, pageToken: token }, signal, deadline, mask);
        if (withLocations) calls.withLocation++;
        else calls.idsOnly++;
        for (const place of page.places) places.push({ id: place.id, location: isLatLng(place.location) ? place.location : null });
        token = page.nextPageToken;
      } while (token !== null && places.length < MAX_RESULTS_PER_QUERY);
      return { places, calls };
    },
  };
}

/** The sandbox's surveyor: what a process without a Google key, and every test account (decision 036), surveys with. */
export const sandboxSurveyor: AreaSurveyor = {
  name: 'sandbox',
  resolvePlace: (place, regionCode) => Promise.resolve(sandboxViewport(place, regionCode)),
  listTile: (request, tile) =>
    Promise.resolve({
      places: placeIdsIn(request, tile.rect).slice(0, SANDBOX_TILE_MAX),
      calls: { idsOnly: 0, withLocation: 0 },
    }),
};

/**
 * The surveyor of google_maps for this process: Google's with its key (under the fleet's token bucket for
 * google_places, shared with the workers), the sandbox's without. `close` releases its Redis connection.
 */
export function createAreaSurveyor(
  config: Config,
  deps: { redis?: RedisClient } = {},
): { surveyor: AreaSurveyor; close: () => Promise<void> } {
  const { googlePlaces } = config.providers;
  if (googlePlaces.apiKey === null) return { surveyor: sandboxSurveyor, close: () => Promise.resolve() };
  const redis = deps.redis ?? redisConnection(config.redis, 'lazy', 'area-survey-rate-limit');
  const client = new UpstreamClient({
    name: 'google_places',
    baseUrl: googlePlaces.baseUrl,
    headers: { 'x-goog-api-key': googlePlaces.apiKey },
    rateLimiter: new FleetRateLimiter({
      redis,
      key: redisKeys(config.redis).key('ratelimit', 'google_places'),
      ratePerMin: googlePlaces.ratePerMin,
    }),
  });
  return { surveyor: googleSurveyor(client), close: () => (deps.redis ? Promise.resolve() : closeRedis(redis)) };
}

/** An area's survey: its leaf tiles with the places each owns, and what it cost upstream. */
export interface AreaSurvey {
  /** the tiles a run searches: unsaturated (or saturated at the minimum size) and owning at least one place */
  leaves: Array<{ path: string; rect: Rect; places: number; listed: number }>;
  /** places inside the area, each counted once */
  places: number;
  tilesSearched: number;
  saturatedAtMinimum: number;
  calls: { idsOnly: number; withLocation: number };
}

export interface SurveyLimits {
  maxTiles: number;
  deadline: number;
  signal: AbortSignal;
  concurrency: number;
}

export class SurveyTooLarge extends Error {
  constructor(readonly tiles: number) {
    super(`the area needs more than ${tiles} tiles`);
  }
}

/**
 * The tiling a run would make, done with listings only: initial tiles, a saturated tile's quarters, down to the
 * minimum size. A place inside the area is counted once (by id, across tiles), and attributed to the leaf that
 * owns it (its half-open cell; a place listed without a location, in a tile wholly inside the area, to the first
 * leaf that listed it).
 */
export async function surveyArea(
  surveyor: AreaSurveyor,
  area: ResolvedArea,
  request: GenerationRequest,
  limits: SurveyLimits,
): Promise<AreaSurvey> {
  const queue: Tile[] = initialTiles(area);
  const owner = new Map<string, string>();
  const leaves = new Map<string, { path: string; rect: Rect; places: number; listed: number }>();
  const calls = { idsOnly: 0, withLocation: 0 };
  let searched = 0;
  let saturatedAtMinimum = 0;
  const visit = async (tile: Tile) => {
    const crossing = tileRelation(area, tile.rect) === 'crossing';
    const listing = await surveyor.listTile(request, tile, crossing, limits.signal, limits.deadline);
    searched++;
    calls.idsOnly += listing.calls.idsOnly;
    calls.withLocation += listing.calls.withLocation;
    const saturated = listing.places.length >= MAX_RESULTS_PER_QUERY;
    if (saturated && canSplit(tile.rect)) {
      queue.push(...splitTile(area, tile));
      return;
    }
    if (saturated) saturatedAtMinimum++;
    const leaf = { path: tile.path, rect: tile.rect, places: 0, listed: listing.places.length };
    leaves.set(tile.path, leaf);
    for (const place of listing.places) {
      if (place.location !== null) {
        if (!areaContains(area, place.location) || !tileOwns(area, tile.rect, place.location)) continue;
      } else if (crossing || owner.has(place.id)) continue;
      const previous = owner.get(place.id);
      if (previous !== undefined) leaves.get(previous)!.places--;
      owner.set(place.id, tile.path);
      leaf.places++;
    }
  };
  // At most `concurrency` listings at once; the first failure stops new ones and is thrown once the rest settle.
  const running = new Set<Promise<void>>();
  let failure: unknown = null;
  while ((queue.length > 0 && failure === null) || running.size > 0) {
    while (queue.length > 0 && failure === null && running.size < limits.concurrency) {
      if (searched + running.size >= limits.maxTiles) failure = new SurveyTooLarge(limits.maxTiles);
      else {
        const task: Promise<void> = visit(queue.shift()!)
          .catch((error: unknown) => {
            failure ??= error;
          })
          .finally(() => running.delete(task));
        running.add(task);
      }
    }
    if (running.size > 0) await Promise.race(running);
  }
  if (failure !== null) throw failure;
  const kept = [...leaves.values()].filter((leaf) => leaf.places > 0).sort((a, b) => comparePaths(a.path, b.path));
  return { leaves: kept, places: owner.size, tilesSearched: searched, saturatedAtMinimum, calls };
}

function comparePaths(a: string, b: string): number {
  const [pa, pb] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** The paid calls a run over the survey's leaves makes: each leaf's pages (20 places a page, at least one). */
export function runCalls(survey: AreaSurvey): number {
  return survey.leaves.reduce((sum, leaf) => sum + Math.max(1, Math.ceil(leaf.listed / PAGE_SIZE)), 0);
}

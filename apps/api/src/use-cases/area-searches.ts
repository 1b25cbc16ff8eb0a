import { batchTileCounts, findBatchAreaFacts, findQuote, insertQuote } from '@leadgen/db';
import {
  AREA_LIMITS,
  chargeFor,
  errors,
  initialTiles,
  isTestAccountId,
  newId,
  rectArea,
  type GenerationRequest,
  type ResolvedArea,
} from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { ProviderError, runCalls, sandboxSurveyor, surveyArea, SurveyTooLarge, type AreaSurveyor } from '@leadgen/providers';
import type { ApiDependencies } from '../dependencies';
import type { AreaBatchRequest, AreaSearch } from '../routes/leads/area-schema';

/** A quote searches at most this many tiles (each one listing, up to three calls) ... */
export const QUOTE_MAX_TILES = 2_000;
/** ... within this time: a quote is answered in one request */
export const QUOTE_TIMEOUT_MS = 25_000;
const QUOTE_CONCURRENCY = 4;
/** how long a quote can be turned into a batch: the places it counted change over days, not hours */
export const QUOTE_TTL_HOURS = 24;

type Surveying = Pick<ApiDependencies, 'db'> & { surveyor: AreaSurveyor };

/** A test account's areas are surveyed by the sandbox, whatever upstream the API has a key for (decision 036), as its jobs are run. */
const surveyorFor = (deps: Surveying, accountId: string): AreaSurveyor => (isTestAccountId(accountId) ? sandboxSurveyor : deps.surveyor);

/** The area as polygons: a place name resolved to its viewport by the source (one call), anything else as checked. */
async function resolveArea(
  surveyor: AreaSurveyor,
  search: AreaSearch,
  signal: AbortSignal,
): Promise<{ area: ResolvedArea; resolutionCalls: number }> {
  if (search.area) return { area: search.area, resolutionCalls: 0 };
  const place = search.place!;
  const viewport = await upstream(() => surveyor.resolvePlace(place, search.request.state, signal, Date.now() + QUOTE_TIMEOUT_MS));
  if (viewport === null) throw errors.areaPlaceNotFound(place);
  const area = rectArea('place', viewport);
  if (area.areaKm2 > AREA_LIMITS.maxAreaKm2)
    throw errors.validation([
      {
        pointer: '#/area/place',
        detail: `the place's viewport is ${Math.round(area.areaKm2)} km²; at most ${AREA_LIMITS.maxAreaKm2} km² are searched at once`,
      },
    ]);
  return { area, resolutionCalls: surveyor.name === 'sandbox' ? 0 : 1 };
}

async function upstream<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProviderError) {
      logger.warn('area survey failed upstream', { error: error.message, upstreamStatus: error.upstreamStatus });
      throw errors.serviceUnavailable('The source did not answer the area survey; nothing was charged. Try again later.');
    }
    throw error;
  }
}

/**
 * POST /api/v1/leads/quotes (decision 039): the area's tiling done with listings only (the cheapest field masks:
 * IDs only inside the area, ids and locations across its edge), stored for 24 hours so a batch can be made from
 * it. Costs the account nothing; the operator pays the calls counted in `upstreamCalls`.
 */
export async function quoteArea(deps: Surveying, accountId: string, search: AreaSearch) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('quote timed out')), QUOTE_TIMEOUT_MS);
  try {
    const surveyor = surveyorFor(deps, accountId);
    const { area, resolutionCalls } = await resolveArea(surveyor, search, controller.signal);
    const survey = await upstream(() =>
      surveyArea(surveyor, area, search.request, {
        maxTiles: QUOTE_MAX_TILES,
        deadline: Date.now() + QUOTE_TIMEOUT_MS,
        signal: controller.signal,
        concurrency: QUOTE_CONCURRENCY,
      }),
    ).catch((error: unknown) => {
      throw error instanceof SurveyTooLarge ? errors.areaTooLarge(error.tiles) : error;
    });
    const id = newId.quote();
    const createdAt = new Date();
    const expiresAt = new Date(createdAt.getTime() + QUOTE_TTL_HOURS * 3_600_000);
    const body = {
      quoteId: id,
      provider: surveyor.name,
      request: publicRequest(search.request),
      area: areaFacts(area),
      places: survey.places,
      credits: survey.leaves.reduce((sum, leaf) => sum + chargeFor(search.request.source, leaf.places, { areaTile: true }), 0),
      paidCalls: runCalls(survey),
      tiles: { searched: survey.tilesSearched, toRun: survey.leaves.length, saturatedAtMinimum: survey.saturatedAtMinimum },
      upstreamCalls: { placeResolution: resolutionCalls, idsOnly: survey.calls.idsOnly, withLocation: survey.calls.withLocation },
      createdAt: createdAt.toISOString(),
      expiresAt: expiresAt.toISOString(),
    };
    await insertQuote(deps.db, { id, accountId, request: search.request, area, tiles: survey.leaves, body, expiresAt });
    logger.info('area quoted', { quoteId: id, places: survey.places, tiles: survey.tilesSearched, upstreamCalls: body.upstreamCalls });
    return body;
  } finally {
    clearTimeout(timer);
  }
}

/** The request as the client sent it: the tile size is ours. */
function publicRequest(request: GenerationRequest): Omit<GenerationRequest, 'maxResults' | 'tile'> {
  const { maxResults: _max, tile: _tile, ...rest } = request;
  return rest;
}

/** What a body shows of an area: how it was given, its bounding box, its size. */
export function areaFacts(area: ResolvedArea) {
  return {
    kind: area.kind,
    bounds: {
      south: area.bounds.low.latitude,
      west: area.bounds.low.longitude,
      north: area.bounds.high.latitude,
      east: area.bounds.high.longitude,
    },
    areaKm2: Math.round(area.areaKm2 * 100) / 100,
  };
}

/**
 * An area batch's first children: a quote's tiles (those owning a place, none asked again), else the area's
 * initial grid (split as it runs). Each child is the request with its tile.
 */
export async function areaBatchChildren(
  deps: Surveying,
  accountId: string,
  input: AreaBatchRequest,
): Promise<{ area: ResolvedArea; quoteId: string | null; requests: GenerationRequest[] }> {
  if (input.quoteId !== null) {
    const quote = await findQuote(deps.db, accountId, input.quoteId);
    if (!quote) throw errors.quoteNotFound();
    if (quote.expiresAt.getTime() <= Date.now()) throw errors.quoteExpired(quote.expiresAt.toISOString());
    if (quote.tiles.length === 0) throw errors.areaEmpty();
    const request: GenerationRequest = input.excludeDelivered ? { ...quote.request, excludeDelivered: true } : quote.request;
    return {
      area: quote.area,
      quoteId: quote.id,
      requests: quote.tiles.map((leaf) => ({ ...request, tile: { path: leaf.path, rect: leaf.rect } })),
    };
  }
  const search = input.search!;
  const controller = new AbortController();
  const { area } = await resolveArea(surveyorFor(deps, accountId), search, controller.signal);
  return { area, quoteId: null, requests: initialTiles(area).map((tile) => ({ ...search.request, tile })) };
}

/** An area batch's `areaSearch` (GET /leads/batches/{id}): its area, quote, tiles by state and places clipped; null for a batch of requests. */
export async function readBatchAreaSearch(db: ApiDependencies['db'], batchId: string) {
  const facts = await findBatchAreaFacts(db, batchId);
  if (!facts) return null;
  const { byState, outsideArea } = await batchTileCounts(db, batchId);
  return {
    area: areaFacts(facts.area),
    quoteId: facts.quoteId,
    maxResults: facts.maxResults,
    tiles: {
      total: Object.values(byState).reduce((sum, n) => sum + n, 0),
      searching: byState.searching,
      done: byState.done,
      split: byState.split,
      saturatedAtMinimum: byState.saturated_at_minimum,
      notSearched: byState.not_searched,
    },
    skipped: { outsideArea },
  };
}

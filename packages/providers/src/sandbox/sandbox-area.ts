import { areaContains, tileOwns, type GenerationRequest, type LatLng, type Rect, type ResolvedArea, type Tile } from '@leadgen/domain';
import type { ProviderLead } from '../lead-provider';
import { categoryProfile } from './sandbox-categories';
import { sandboxPlaceViewport } from './sandbox-geo';
import { localeFor } from './sandbox-places';
import { toQuery, seedOf } from './sandbox-query';
import { googleMapsRecord } from './sandbox-records';
import { SeededRandom } from './seeded-random';

/**
 * The sandbox's map for area searches (decision 039): a deterministic city of places with coordinates. The
 * world is cut into cells of CELL_DEGREES; each cell holds 0..MAX_PER_CELL places of the request's category
 * (and keyword), placed and named from a seed of the cell and the query, so a tile asked twice, or by two
 * workers, lists the same places. About 9 places per km², so an initial tile (a few km across) lists Google's
 * 60 and is split, as a dense city's would be.
 */
export const CELL_DEGREES = 0.005;
const MAX_PER_CELL = 4;
/** the sandbox lists at most this many places for one tile, as Google's Text Search does */
export const SANDBOX_TILE_MAX = 60;

export interface AreaPlace {
  lead: ProviderLead;
  location: LatLng;
}

/** Every place of the query in `rect` (closed, as Google's rectangle), in the sandbox's fixed ranking. */
export function placesIn(request: GenerationRequest, rect: Rect): AreaPlace[] {
  return scan(request, rect, true) as AreaPlace[];
}

/** The ids and locations only, as a quote's IDs-only listing sees them: no record is built (a quote of 1,000 tiles stays quick). */
export function placeIdsIn(request: GenerationRequest, rect: Rect): Array<{ id: string; location: LatLng }> {
  return scan(request, rect, false).map((place) => ({ id: place.id, location: place.location }));
}

function scan(request: GenerationRequest, rect: Rect, withRecords: boolean): Array<Partial<AreaPlace> & { id: string; location: LatLng }> {
  const query = toQuery('google_maps', { ...request, city: undefined, tile: undefined });
  const seed = seedOf(query);
  const locale = localeFor(query.state);
  const profile = categoryProfile(query.category);
  const idPrefix = seedHash(seed);
  const found: Array<Partial<AreaPlace> & { id: string; location: LatLng; rank: number }> = [];
  const [i0, i1] = [Math.floor(rect.low.latitude / CELL_DEGREES), Math.floor(rect.high.latitude / CELL_DEGREES)];
  const [j0, j1] = [Math.floor(rect.low.longitude / CELL_DEGREES), Math.floor(rect.high.longitude / CELL_DEGREES)];
  for (let i = i0; i <= i1; i++)
    for (let j = j0; j <= j1; j++) {
      const cell = SeededRandom.fromText(`area:${seed}:${i}:${j}`);
      const count = cell.int(0, MAX_PER_CELL);
      for (let k = 0; k < count; k++) {
        const location = {
          latitude: (i + cell.next()) * CELL_DEGREES,
          longitude: (j + cell.next()) * CELL_DEGREES,
        };
        const rank = cell.next();
        if (
          location.latitude < rect.low.latitude ||
          location.latitude > rect.high.latitude ||
          location.longitude < rect.low.longitude ||
          location.longitude > rect.high.longitude
        )
          continue;
        const id = `sandbox_place_${idPrefix}_${i}_${j}_${k}`;
        if (!withRecords) {
          found.push({ id, location, rank });
          continue;
        }
        const rng = SeededRandom.fromText(`place:${seed}:${i}:${j}:${k}`);
        const claimDomain = (slug: string) => `${slug || 'place'}-${i}-${j}-${k}.example`;
        // never null for google_maps (only a shopify filter rejects a candidate): the ids-only listing counts the same places
        const record = googleMapsRecord({ query, rng, locale, profile, claimDomain });
        if (record === null) continue;
        found.push({ id, lead: { ...record, dedupKey: id }, location, rank });
      }
    }
  return found.sort((a, b) => a.rank - b.rank).map(({ rank: _rank, ...place }) => place);
}

/** A tile's search as the sandbox answers it: at most 60 places, clipped to the area and to the tile's own cell. */
export function sandboxTile(request: GenerationRequest, tile: Tile, area: ResolvedArea) {
  const listed = placesIn(request, tile.rect).slice(0, SANDBOX_TILE_MAX);
  let outsideArea = 0;
  const leads: AreaPlace[] = [];
  for (const place of listed) {
    if (!areaContains(area, place.location)) outsideArea++;
    else if (tileOwns(area, tile.rect, place.location)) leads.push(place);
  }
  return { leads, found: listed.length, outsideArea, saturated: listed.length >= SANDBOX_TILE_MAX, listed };
}

/** A place name's viewport in the sandbox: a fixed rectangle seeded by the name (the sandbox has no gazetteer). */
export function sandboxViewport(place: string, regionCode: string | null = null): Rect {
  return sandboxPlaceViewport(place, regionCode);
}

function seedHash(seed: string): string {
  return SeededRandom.fromText(`id:${seed}`).hex(8);
}

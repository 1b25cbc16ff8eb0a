import { areaContains, type LatLng, type Rect, type ResolvedArea } from './area';

/**
 * The tiles of an area search (decision 039). The area's bounding rectangle is cut into a grid of at most
 * INITIAL_GRID² cells, the cells that miss the area are dropped, and each remaining cell is a tile: one
 * Text Search restricted to it (a `locationRestriction` rectangle). A tile whose search comes back
 * saturated (Google's 60) is split into its four quarters, down to MIN_TILE_SPAN_DEGREES.
 *
 * A tile's path names it within its batch: "3" for the fourth initial cell, "3.0".."3.3" for its quarters.
 * Google's rectangle is closed (a place on an edge is inside both neighbours), so a tile *owns* only the
 * half-open cell [low, high) (closed on the area's north and east edges): every point has exactly one
 * owning leaf, and a place on a shared edge is delivered once, by its owner. (The one point this loses: a
 * place exactly on the area's boundary at the low edge of a cell that lies outside the area and is dropped.)
 */
export interface Tile {
  path: string;
  rect: Rect;
}

/** about 110 m of latitude: below this one more split is not worth four calls (decision 039) */
export const MIN_TILE_SPAN_DEGREES = 0.001;
/** the initial grid is at most this many cells each way */
export const INITIAL_GRID = 4;
/** an initial cell spans at most this much (degrees); a larger area gets the full grid */
const INITIAL_CELL_DEGREES = 0.05;

export type TileRelation = 'inside' | 'outside' | 'crossing';

export function initialTiles(area: ResolvedArea): Tile[] {
  const { low, high } = area.bounds;
  const dLat = high.latitude - low.latitude;
  const dLng = high.longitude - low.longitude;
  const rows = Math.min(INITIAL_GRID, Math.max(1, Math.ceil(dLat / INITIAL_CELL_DEGREES)));
  const cols = Math.min(INITIAL_GRID, Math.max(1, Math.ceil(dLng / INITIAL_CELL_DEGREES)));
  const tiles: Tile[] = [];
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const rect: Rect = {
        low: { latitude: low.latitude + (dLat * r) / rows, longitude: low.longitude + (dLng * c) / cols },
        high: {
          latitude: r === rows - 1 ? high.latitude : low.latitude + (dLat * (r + 1)) / rows,
          longitude: c === cols - 1 ? high.longitude : low.longitude + (dLng * (c + 1)) / cols,
        },
      };
      const path = String(r * cols + c);
      if (tileRelation(area, rect) !== 'outside') tiles.push({ path, rect });
    }
  return tiles;
}

/** Whether a tile can be split again (its quarters would not be under the minimum size). */
export function canSplit(rect: Rect): boolean {
  return (
    rect.high.latitude - rect.low.latitude >= 2 * MIN_TILE_SPAN_DEGREES ||
    rect.high.longitude - rect.low.longitude >= 2 * MIN_TILE_SPAN_DEGREES
  );
}

/** The quarters of a saturated tile that meet the area (none when it is at the minimum size). */
export function splitTile(area: ResolvedArea, tile: Tile): Tile[] {
  if (!canSplit(tile.rect)) return [];
  const { low, high } = tile.rect;
  const midLat = (low.latitude + high.latitude) / 2;
  const midLng = (low.longitude + high.longitude) / 2;
  const quarters: Rect[] = [
    { low: { ...low }, high: { latitude: midLat, longitude: midLng } },
    { low: { latitude: low.latitude, longitude: midLng }, high: { latitude: midLat, longitude: high.longitude } },
    { low: { latitude: midLat, longitude: low.longitude }, high: { latitude: high.latitude, longitude: midLng } },
    { low: { latitude: midLat, longitude: midLng }, high: { ...high } },
  ];
  return quarters
    .map((rect, i) => ({ path: `${tile.path}.${i}`, rect }))
    .filter((quarter) => tileRelation(area, quarter.rect) !== 'outside');
}

/** Whether the tile owns `point` (half-open, closed on the area's north and east edges): the one leaf that delivers it. */
export function tileOwns(area: Pick<ResolvedArea, 'bounds'>, rect: Rect, point: LatLng): boolean {
  const top = rect.high.latitude >= area.bounds.high.latitude;
  const right = rect.high.longitude >= area.bounds.high.longitude;
  return (
    point.latitude >= rect.low.latitude &&
    (point.latitude < rect.high.latitude || (top && point.latitude === rect.high.latitude)) &&
    point.longitude >= rect.low.longitude &&
    (point.longitude < rect.high.longitude || (right && point.longitude === rect.high.longitude))
  );
}

/**
 * Where a rectangle lies against the area: inside (every point of it is in the area), outside (none is),
 * or crossing (an edge of the area passes through its inside). Exact for polygons: without such an edge,
 * the rectangle's inside lies wholly on one side of the boundary, its centre's.
 */
export function tileRelation(area: Pick<ResolvedArea, 'polygons'>, rect: Rect): TileRelation {
  for (const polygon of area.polygons)
    for (const ring of polygon)
      for (let i = 0; i + 1 < ring.length; i++) {
        const a = ring[i]!;
        const b = ring[i + 1]!;
        if (segmentMeetsRectInterior(a[0]!, a[1]!, b[0]!, b[1]!, rect)) return 'crossing';
      }
  // No edge of the area passes through the rectangle's inside: all of it is on one side, the centre's.
  const centre = {
    latitude: (rect.low.latitude + rect.high.latitude) / 2,
    longitude: (rect.low.longitude + rect.high.longitude) / 2,
  };
  return areaContains(area, centre) ? 'inside' : 'outside';
}

/** Liang–Barsky: does the segment (x1,y1)-(x2,y2) (x longitude, y latitude) pass through the rectangle's open interior? */
function segmentMeetsRectInterior(x1: number, y1: number, x2: number, y2: number, rect: Rect): boolean {
  const [xmin, ymin, xmax, ymax] = [rect.low.longitude, rect.low.latitude, rect.high.longitude, rect.high.latitude];
  const dx = x2 - x1;
  const dy = y2 - y1;
  let t0 = 0;
  let t1 = 1;
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q > 0;
    const t = q / p;
    if (p < 0) {
      if (t > t1) return false;
      if (t > t0) t0 = t;
    } else {
      if (t < t0) return false;
      if (t < t1) t1 = t;
    }
    return true;
  };
  if (!clip(-dx, x1 - xmin) || !clip(dx, xmax - x1) || !clip(-dy, y1 - ymin) || !clip(dy, ymax - y1)) return false;
  if (t0 >= t1) return false;
  // the clipped part's midpoint strictly inside: an edge that only runs along the rectangle's side does not count
  const mx = x1 + dx * ((t0 + t1) / 2);
  const my = y1 + dy * ((t0 + t1) / 2);
  return mx > xmin && mx < xmax && my > ymin && my < ymax;
}

import { areaContains, checkArea, initialTiles, splitTile, tileOwns, tileRelation, type ResolvedArea } from './index';

const square = (w: number, s: number, e: number, n: number) => [
  [
    [w, s],
    [e, s],
    [e, n],
    [w, n],
    [w, s],
  ],
];

describe('checkArea', () => {
  it('when a polygon is valid, then it is resolved with its bounds and km²', () => {
    const { area, problems } = checkArea({ type: 'Polygon', coordinates: square(-87.7, 41.8, -87.6, 41.9) });
    expect(problems).toEqual([]);
    expect(area!.bounds).toEqual({ low: { latitude: 41.8, longitude: -87.7 }, high: { latitude: 41.9, longitude: -87.6 } });
    expect(area!.areaKm2).toBeGreaterThan(80);
    expect(area!.areaKm2).toBeLessThan(95);
  });

  it('when a ring is not closed, too short, or a position is out of range, then every problem has its pointer', () => {
    const { problems } = checkArea({
      type: 'MultiPolygon',
      coordinates: [
        [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 1],
          ],
        ],
        [
          [
            [0, 0],
            [1, 0],
            [0, 0],
          ],
        ],
        [
          [
            [0, 0],
            [200, 0],
            [1, 1],
            [0, 0],
          ],
        ],
      ],
    });
    expect(problems.map((p) => p.pointer)).toEqual(['#/area/coordinates/0/0', '#/area/coordinates/1/0', '#/area/coordinates/2/0/1']);
  });

  it('when the area is too large, has too many vertices or two forms, then it is refused', () => {
    expect(checkArea({ bbox: { south: 40, west: -90, north: 42.9, east: -87.1 } }).problems[0]!.detail).toMatch(/km²/);
    const ring = Array.from({ length: 1001 }, (_, i) => [
      Math.cos((i / 1000) * 2 * Math.PI) * 0.1,
      Math.sin((i / 1000) * 2 * Math.PI) * 0.1,
    ]);
    ring[1000] = ring[0]!;
    expect(checkArea({ type: 'Polygon', coordinates: [ring] }).problems[0]!.detail).toMatch(/at most 1000 positions/);
    expect(checkArea({ place: 'Chicago', bbox: {} }).problems).toEqual([
      { pointer: '#/area', detail: expect.stringMatching(/exactly one/) },
    ]);
    expect(checkArea({ bbox: { south: 1, west: 0, north: 0, east: 1, up: 2 } }).problems.map((p) => p.pointer)).toEqual(['#/area/bbox/up']);
    expect(checkArea({ circle: { center: { lat: 0, lng: 0 }, radiusMeters: 10 } }).problems[0]!.pointer).toBe('#/area/circle/radiusMeters');
    expect(checkArea({ type: 'Point', coordinates: [0, 0] }).problems[0]!.pointer).toBe('#/area/type');
  });

  it('when a place is named, then it is returned to be resolved', () => {
    expect(checkArea({ place: ' Chicago, US ' })).toEqual({ area: null, place: 'Chicago, US', problems: [] });
  });

  it('when a circle is given, then its polygon holds its centre and not a point beyond its radius', () => {
    const { area } = checkArea({ circle: { center: { lat: 41.88, lng: -87.63 }, radiusMeters: 1000 } });
    expect(areaContains(area!, { latitude: 41.88, longitude: -87.63 })).toBe(true);
    expect(areaContains(area!, { latitude: 41.88 + 0.0095, longitude: -87.63 })).toBe(false); // ~1,056 m north
    expect(areaContains(area!, { latitude: 41.88 + 0.0085, longitude: -87.63 })).toBe(true); // ~945 m north
  });
});

describe('tiles', () => {
  // an L: the square 0..0.2 without its north-east quarter
  const lShape: ResolvedArea = checkArea({
    type: 'Polygon',
    coordinates: [
      [
        [0, 0],
        [0.2, 0],
        [0.2, 0.1],
        [0.1, 0.1],
        [0.1, 0.2],
        [0, 0.2],
        [0, 0],
      ],
    ],
  }).area!;

  it('when a rectangle is in, out of, or across the area, then its relation says so', () => {
    const rect = (w: number, s: number, e: number, n: number) => ({
      low: { latitude: s, longitude: w },
      high: { latitude: n, longitude: e },
    });
    expect(tileRelation(lShape, rect(0.01, 0.01, 0.09, 0.09))).toBe('inside');
    expect(tileRelation(lShape, rect(0.11, 0.11, 0.19, 0.19))).toBe('outside');
    expect(tileRelation(lShape, rect(0.05, 0.05, 0.15, 0.15))).toBe('crossing');
    expect(tileRelation(lShape, rect(0.1, 0.1, 0.2, 0.2))).toBe('outside'); // the cut-out corner, edges shared
  });

  it('when an area is tiled, then the cells that miss it are dropped and quarters are named under their tile', () => {
    const tiles = initialTiles(lShape);
    expect(tiles.map((t) => t.path)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '12', '13']);
    const quarters = splitTile(lShape, tiles[0]!);
    expect(quarters.map((q) => q.path)).toEqual(['0.0', '0.1', '0.2', '0.3']);
  });

  it('when a point lies on an edge two tiles share, then exactly one tile owns it', () => {
    const tiles = initialTiles(lShape);
    for (const point of [
      { latitude: 0.05, longitude: 0.05 },
      { latitude: 0, longitude: 0 },
      { latitude: 0.2, longitude: 0.05 },
      { latitude: 0.05, longitude: 0.1 },
      { latitude: 0.1, longitude: 0.05 },
    ])
      expect(tiles.filter((t) => tileOwns(lShape, t.rect, point))).toHaveLength(1);
  });
});

import { checkArea } from '@leadgen/domain';
import { placesIn, sandboxTile, sandboxViewport, SANDBOX_TILE_MAX } from './sandbox-area';

const request = { source: 'google_maps' as const, category: 'dentist', state: 'US', maxResults: 60 };
const rect = (w: number, s: number, e: number, n: number) => ({ low: { latitude: s, longitude: w }, high: { latitude: n, longitude: e } });

describe('the sandbox map', () => {
  it('when a rectangle is asked twice, then it lists the same places, every one inside it, with distinct ids', () => {
    const a = placesIn(request, rect(-87.7, 41.8, -87.68, 41.82));
    const b = placesIn(request, rect(-87.7, 41.8, -87.68, 41.82));
    expect(a.map((p) => p.lead.dedupKey)).toEqual(b.map((p) => p.lead.dedupKey));
    expect(new Set(a.map((p) => p.lead.dedupKey)).size).toBe(a.length);
    for (const p of a) {
      expect(p.location.latitude).toBeGreaterThanOrEqual(41.8);
      expect(p.location.longitude).toBeLessThanOrEqual(-87.68);
    }
    // about 9 a km²: a 2 km square holds dozens
    expect(a.length).toBeGreaterThan(20);
  });

  it('when a tile is a few km across, then it lists the 60 Google would and says it is saturated', () => {
    const tile = { path: '0', rect: rect(-87.75, 41.8, -87.7, 41.85) };
    const area = checkArea({ bbox: { south: 41.8, west: -87.75, north: 41.85, east: -87.7 } }).area!;
    const answer = sandboxTile(request, tile, area);
    expect(answer.found).toBe(SANDBOX_TILE_MAX);
    expect(answer.saturated).toBe(true);
  });

  it('when the area is a triangle inside the tile, then places outside it are counted, not delivered', () => {
    const tile = { path: '0', rect: rect(-87.7, 41.8, -87.69, 41.81) };
    const area = checkArea({
      type: 'Polygon',
      coordinates: [
        [
          [-87.7, 41.8],
          [-87.69, 41.8],
          [-87.7, 41.81],
          [-87.7, 41.8],
        ],
      ],
    }).area!;
    const answer = sandboxTile(request, tile, area);
    expect(answer.outsideArea).toBeGreaterThan(0);
    expect(answer.leads.length + answer.outsideArea).toBe(answer.found);
  });

  it('when a place name is resolved, then the same name always gives the same ~11 km square', () => {
    expect(sandboxViewport('Chicago, US')).toEqual(sandboxViewport(' chicago, us '));
  });
});

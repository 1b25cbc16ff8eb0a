import { areaContains, checkArea, type GoogleMapsLead } from '@leadgen/domain';
import type { ProviderPage } from '../lead-provider';
import { placesIn, sandboxTile, sandboxViewport, SANDBOX_TILE_MAX } from './sandbox-area';
import { createSandboxProvider } from './sandbox-provider';

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

  it('when a tile is searched through the provider, then its leads carry the complete lead with the location the clipping read, and the filters apply', async () => {
    const tile = { path: '0', rect: rect(-87.75, 41.8, -87.7, 41.85) };
    const area = checkArea({ bbox: { south: 41.8, west: -87.75, north: 41.85, east: -87.7 } }).area!;
    const provider = createSandboxProvider('google_maps', { pageDelayMs: 0 });
    const run = async (filters?: { minRating: number }) => {
      const pages: ProviderPage[] = [];
      const req = { ...request, tile, ...(filters ? { filters } : {}) };
      for await (const page of provider.search(req, {
        signal: new AbortController().signal,
        cursor: null,
        deadline: Date.now() + 10_000,
        area,
      }))
        pages.push(page);
      return pages;
    };
    const all = await run();
    const leads = all.flatMap((page) => page.leads.map((row) => row.lead as GoogleMapsLead));
    expect(leads.length).toBe(sandboxTile(request, tile, area).leads.length);
    for (const lead of leads) {
      const at = lead.place!.location!;
      expect(areaContains(area, { latitude: at.lat, longitude: at.lng })).toBe(true);
      expect(lead.provenance).toBeDefined();
    }
    expect(all.at(-1)!.tile).toEqual({ found: SANDBOX_TILE_MAX, outsideArea: 0, saturated: true });

    const strict = await run({ minRating: 4.5 });
    const kept = strict.flatMap((page) => page.leads.map((row) => row.lead as GoogleMapsLead));
    const filtered = strict.reduce((n, page) => n + (page.filtered ?? 0), 0);
    expect(kept.every((lead) => (lead.reviewScore ?? 0) >= 4.5)).toBe(true);
    expect(filtered).toBeGreaterThan(0);
    expect(kept.length + filtered).toBe(leads.length);
    expect(strict.at(-1)!.tile).toEqual(all.at(-1)!.tile);
  });
});

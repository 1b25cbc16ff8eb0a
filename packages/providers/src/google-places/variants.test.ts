import { request } from '../../test/support/provider-search';
import { decodeCursor, encodeCursor } from './google-places-provider';
import { areaOf, VARIANT_COUNT, variantBody } from './variants';

describe('google query variants', () => {
  const req = request({ category: 'Plumber', keyword: '24h', city: 'Lyon', state: 'FR' });

  it('when the area is not known yet, then only the text variants can be built', () => {
    expect(variantBody(req, 0, null, 20)).toEqual({ textQuery: 'Plumber 24h in Lyon, France', pageSize: 20, regionCode: 'FR' });
    expect(variantBody(req, 1, null, 20)?.textQuery).toBe('Plumber 24h near Lyon, France');
    expect(variantBody(req, 2, null, 20)).toBeNull();
    expect(variantBody(req, VARIANT_COUNT, null, 20)).toBeNull();
  });

  it('when the first results are known, then four sub-area circles cover each side of their spread', () => {
    const area = areaOf([
      { id: 'a', location: { latitude: 45.7, longitude: 4.8 } },
      { id: 'b', location: { latitude: 45.8, longitude: 4.9 } },
      { id: 'c' },
    ]);
    expect(area?.center).toEqual({ latitude: 45.75, longitude: 4.85 });
    expect(area!.radius).toBeGreaterThan(5_000);
    const circles = [2, 3, 4, 5].map((i) => variantBody(req, i, area, 20)?.locationBias?.circle);
    expect(new Set(circles.map((c) => JSON.stringify(c?.center))).size).toBe(4);
    expect(circles.every((c) => c !== undefined && c.radius <= 50_000)).toBe(true);
  });

  it('when a cursor is unreadable, then the search starts over instead of failing', () => {
    expect(decodeCursor('garbage')).toEqual({ variant: 0, pageToken: null, area: null });
    const state = { variant: 3, pageToken: 'tok', area: { center: { latitude: 1, longitude: 2 }, radius: 3_000 } };
    expect(decodeCursor(encodeCursor(state))).toEqual(state);
  });
});

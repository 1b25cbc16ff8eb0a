import { request } from '../../test/support/provider-search';
import { type CursorState, decodeCursor, encodeCursor, nextQuery } from './google-places-provider';
import { MAX_AREA_QUERIES, quarters, queryBody, searchArea } from './search-areas';

const city = { low: { latitude: 45.7, longitude: 4.8 }, high: { latitude: 45.8, longitude: 4.9 } };
const start: CursorState = { area: null, pageToken: null, pending: [], bounds: null, returned: 0, fresh: 0, asked: 0 };

describe('google search areas', () => {
  const req = request({ category: 'Plumber', keyword: '24h', city: 'Lyon', state: 'FR' });

  it('when the city is asked, then the text names it; a rectangle query names no place and is restricted to the rectangle', () => {
    expect(queryBody(req, null, 20)).toEqual({
      textQuery: 'Plumber 24h in Lyon, France',
      pageSize: 20,
      regionCode: 'FR',
      includePureServiceAreaBusinesses: true,
    });
    expect(queryBody(req, city, 20)).toEqual({
      textQuery: 'Plumber 24h',
      pageSize: 20,
      regionCode: 'FR',
      includePureServiceAreaBusinesses: true,
      locationRestriction: { rectangle: city },
    });
  });

  it('when a rectangle is split, then its four quarters cover it exactly, and one too small is not split', () => {
    const parts = quarters(city);
    expect(parts).toHaveLength(4);
    const area = parts.reduce((sum, r) => sum + (r.high.latitude - r.low.latitude) * (r.high.longitude - r.low.longitude), 0);
    expect(area).toBeCloseTo(0.1 * 0.1, 10);
    expect(quarters({ low: { latitude: 1, longitude: 1 }, high: { latitude: 1.001, longitude: 1.001 } })).toEqual([]);
    const grown = searchArea(city);
    expect(grown.low.latitude).toBeLessThan(45.7);
    expect(grown.high.longitude).toBeGreaterThan(4.9);
  });

  it('when the city query listed fewer than 60, then nothing else is asked: that was every match', () => {
    expect(nextQuery({ ...start, returned: 45, fresh: 45, bounds: city })).toBeNull();
  });

  it('when the city query listed 60, then the quarters of its area are asked next, one at a time', () => {
    const next = nextQuery({ ...start, returned: 60, fresh: 60, bounds: city });
    expect(next).toMatchObject({ pageToken: null, returned: 0, fresh: 0, asked: 1 });
    expect(next!.area).toEqual(quarters(searchArea(city))[0]);
    expect(next!.pending).toHaveLength(3);
  });

  it('when a rectangle lists 60 with new places, then it is split; with nothing new, it is not (its quarters could only repeat it)', () => {
    const running = { ...start, area: city, pending: [], asked: 1, returned: 60 };
    expect(nextQuery({ ...running, fresh: 12 })?.pending).toHaveLength(3);
    expect(nextQuery({ ...running, fresh: 0 })).toBeNull();
    expect(nextQuery({ ...running, returned: 30, fresh: 30 })).toBeNull();
  });

  it('when the rectangle budget is spent, then the search ends', () => {
    expect(nextQuery({ ...start, area: city, pending: [city], asked: MAX_AREA_QUERIES, returned: 10, fresh: 10 })).toBeNull();
  });

  it('when a cursor is unreadable or of the old variant format, then the search starts over instead of failing', () => {
    expect(decodeCursor('garbage')).toEqual(start);
    expect(decodeCursor(JSON.stringify({ v: 1, variant: 3, pageToken: 'tok', area: null }))).toEqual(start);
    const state: CursorState = { area: city, pageToken: 'tok', pending: quarters(city), bounds: city, returned: 20, fresh: 7, asked: 2 };
    expect(decodeCursor(encodeCursor(state))).toEqual(state);
  });
});

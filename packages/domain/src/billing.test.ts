import { chargeFor, reservationFor } from './billing';

describe('billing', () => {
  it.each([
    ['google_maps', 0, 0],
    ['google_maps', 1, 10],
    ['google_maps', 5, 10],
    ['google_maps', 6, 12],
    ['google_maps', 100, 200],
    ['linkedin', 0, 0],
    ['linkedin', 1, 2],
    ['linkedin', 100, 200],
    ['shopify', 0, 0],
    ['shopify', 1, 26],
    ['shopify', 100, 2600],
  ] as const)('when %s delivers %i, then %i credits are charged', (source, delivered, credits) => {
    expect(chargeFor(source, delivered)).toBe(credits);
  });

  it.each([
    ['google_maps', 1, 10],
    ['google_maps', 25, 50],
    ['linkedin', 3, 6],
    ['shopify', 4, 104],
  ] as const)('when %s asks for %i, then %i credits are reserved', (source, maxResults, credits) => {
    expect(reservationFor(source, maxResults)).toBe(credits);
  });

  it('when any number is delivered, then the charge never exceeds the reservation', () => {
    for (const source of ['google_maps', 'linkedin', 'shopify'] as const) {
      for (let max = 1; max <= 100; max++) {
        for (let delivered = 0; delivered <= max; delivered++) {
          expect(chargeFor(source, delivered)).toBeLessThanOrEqual(reservationFor(source, max));
        }
      }
    }
  });
});

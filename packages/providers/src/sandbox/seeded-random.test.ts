import { SeededRandom } from './seeded-random';

describe('SeededRandom', () => {
  it('when two generators share a seed text, then they draw the same stream', () => {
    const a = SeededRandom.fromText('dentist|US|Austin');
    const b = SeededRandom.fromText('dentist|US|Austin');
    const c = SeededRandom.fromText('dentist|US|Dallas');
    const draws = (r: SeededRandom) => Array.from({ length: 20 }, () => r.next());
    const first = draws(a);
    expect(draws(b)).toEqual(first);
    expect(draws(c)).not.toEqual(first);
  });

  it('when integers are drawn, then both bounds are reached and never passed', () => {
    const rng = SeededRandom.fromText('bounds');
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(rng.int(3, 7));
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7]);
  });

  it('when a pattern is filled, then # is a digit, % a non-zero digit and @ a capital letter', () => {
    const rng = SeededRandom.fromText('fill');
    for (let i = 0; i < 200; i++) expect(rng.fill('+1 (%##) @-#')).toMatch(/^\+1 \([1-9]\d\d\) [A-Z]-\d$/);
  });
});

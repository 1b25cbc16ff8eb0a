import { evaluateCorpus, scoreLines, WORLD_SITES } from '@leadgen/testing';

// The world corpus (packages/testing/src/fake-sites/world): the holdout half is never looked at while
// the crawler is tuned; its thresholds are the "done" bar, the tuning half's no lower.
describe('the website enricher on the world corpus (132 sites in 33 countries, and parked domains)', () => {
  const countries = new Set(WORLD_SITES.map((s) => s.country));

  it('when the corpus is counted, then it has at least 120 sites across 25 countries in two halves', () => {
    expect(WORLD_SITES.length).toBeGreaterThanOrEqual(120);
    expect(countries.size).toBeGreaterThanOrEqual(25);
    expect(new Set(WORLD_SITES.map((s) => s.host)).size).toBe(WORLD_SITES.length);
    const holdout = WORLD_SITES.filter((s) => s.half === 'holdout').length;
    expect(Math.abs(2 * holdout - WORLD_SITES.length)).toBeLessThanOrEqual(1);
  });

  for (const half of ['tuning', 'holdout'] as const) {
    it(`when the ${half} half is enriched, then recall >= 95 %, junk 0, lead-right >= 95 %, profiles all right, parked domains recognised`, async () => {
      const score = await evaluateCorpus(WORLD_SITES.filter((s) => s.half === half));
      // eslint-disable-next-line no-console -- the scorer's figures belong in the test log
      console.log(scoreLines(`world corpus, ${half} half`, score).join('\n'));
      expect(score.junk).toBe(0);
      expect(score.recall).toBeGreaterThanOrEqual(0.95);
      expect(score.leadRight).toBeGreaterThanOrEqual(0.95);
      expect(score.profilesRight).toBe(1);
      expect(score.statusWrong).toBe(0);
    });
  }
});

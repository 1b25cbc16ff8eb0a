import { canonicalIndustry, PDL_INDUSTRIES } from './industries';

describe('PDL canonical industries', () => {
  it.each([
    ['Computer Software', 'computer software'],
    ['software', 'computer software'],
    ['SaaS', 'computer software'],
    ['dentist', 'medical practice'],
    ['Law firms', 'law practice'],
    ['restaurants', 'restaurants'],
    ['real estate agents', 'real estate'],
    ['Marketing agency', 'marketing and advertising'],
    ['venture capital', 'venture capital & private equity'],
    ['underwater basket weaving', null],
  ])('when the text is "%s", then the industry is %s', (text, industry) => {
    expect(canonicalIndustry(text)).toBe(industry);
  });

  it('when the list is shipped, then every value is lower case and unique', () => {
    expect(PDL_INDUSTRIES.every((i) => i === i.toLowerCase())).toBe(true);
    expect(new Set(PDL_INDUSTRIES).size).toBe(PDL_INDUSTRIES.length);
  });
});

import { displayCase, normalizeLinkedinUrl } from './people-data-labs-mapping';
import { seniorityOfLevel } from './query';

describe('PDL record mapping', () => {
  it.each([
    ['linkedin.com/in/seanthorne', 'https://www.linkedin.com/in/seanthorne'],
    ['https://uk.linkedin.com/in/Sean-Thorne/?trk=x', 'https://www.linkedin.com/in/sean-thorne'],
    ['http://www.linkedin.com/in/sean-thorne/', 'https://www.linkedin.com/in/sean-thorne'],
    ['https://www.linkedin.com/company/pdl', null],
    ['https://evil.example/in/sean', null],
    ['', null],
  ])('when the profile URL is %s, then its dedup key is %s', (raw, expected) => {
    expect(normalizeLinkedinUrl(raw)).toBe(expected);
  });

  it('when names come in lower case, then they are capitalised, and spelt names are left alone', () => {
    expect(displayCase("mary-jane o'neil")).toBe("Mary-Jane O'Neil");
    expect(displayCase('Ronald McDonald')).toBe('Ronald McDonald');
  });

  it('when PDL gives a title level, then it maps onto our seniorities', () => {
    expect(['cxo', 'owner', 'training', 'unpaid', 7].map(seniorityOfLevel)).toEqual(['c_suite', 'owner', 'intern', null, null]);
  });
});

import type { Lead } from './lead';
import {
  normalizeDomain,
  normalizeEmail,
  normalizeLinkedinUrl,
  normalizePhone,
  normalizeSuppression,
  suppressionKeysOf,
} from './suppressions';

describe('suppression normal forms', () => {
  it.each([
    ['acme.com', 'acme.com'],
    ['WWW.Acme.COM', 'acme.com'],
    ['https://www.acme.com/contact?x=1', 'acme.com'],
    ['shop.acme.co.uk.', 'shop.acme.co.uk'],
    ['not a domain', null],
    ['localhost', null],
  ])('when the domain is %j, then it compares as %j', (text, expected) => {
    expect(normalizeDomain(text)).toBe(expected);
  });

  it.each([
    [' Office@Acme.COM ', 'office@acme.com'],
    ['no-at-sign.example', null],
    ['a b@acme.com', null],
  ])('when the email is %j, then it compares as %j', (text, expected) => {
    expect(normalizeEmail(text)).toBe(expected);
  });

  it.each([
    ['+1 (512) 555-0134', undefined, '+15125550134'],
    ['(512) 555-0134', 'US', '+15125550134'],
    ['030 1234567', 'DE', '+49301234567'],
    ['12', 'US', null],
  ])('when the phone is %j in %s, then it compares as %j', (text, country, expected) => {
    expect(normalizePhone(text, country)).toBe(expected);
  });

  it('when a shop lead is read, then its website, store, emails (and their domains) and phones can all match', () => {
    const lead = {
      source: 'shopify',
      businessName: 'Dune',
      email: 'Hello@Dune.example',
      phone: '(512) 555-0134',
      address: '',
      website: 'https://www.dune.example',
      reviewScore: null,
      categories: [],
      socialProfiles: { facebook: null, instagram: null, linkedin: null },
      store: { domain: 'dune.example', country: 'US', platform: 'shopify' },
      contacts: [{ name: 'A', title: 'CEO', email: 'ceo@agency.example', phone: null, linkedinUrl: null }],
    } as Lead;
    expect(
      suppressionKeysOf(lead, 'US')
        .map((k) => `${k.kind}:${k.value}`)
        .sort(),
    ).toEqual(
      ['domain:agency.example', 'domain:dune.example', 'email:ceo@agency.example', 'email:hello@dune.example', 'phone:+15125550134'].sort(),
    );
  });

  it.each([
    ['https://www.linkedin.com/in/jane-doe-1a2b3c', 'linkedin.com/in/jane-doe-1a2b3c'],
    ['HTTP://UK.LinkedIn.com/in/Jane-Doe-1A2B3C/', 'linkedin.com/in/jane-doe-1a2b3c'],
    ['linkedin.com/in/jane-doe-1a2b3c?trk=public_profile#about', 'linkedin.com/in/jane-doe-1a2b3c'],
    ['https://www.linkedin.com/in/jane-doe-1a2b3c/details/experience/', 'linkedin.com/in/jane-doe-1a2b3c'],
    ['https://www.linkedin.com/pub/jane-doe-1a2b3c', 'linkedin.com/in/jane-doe-1a2b3c'],
    ['https://www.linkedin.com/in/j%C3%BCrgen-m', 'linkedin.com/in/jürgen-m'],
    ['https://www.linkedin.com/company/acme', null],
    ['https://linkedin.com.evil.example/in/jane', null],
    ['https://notlinkedin.com/in/jane', null],
    ['https://www.linkedin.com/in/', null],
    ['jane doe', null],
  ])('when the LinkedIn profile is %j, then it compares as %j', (text, expected) => {
    expect(normalizeLinkedinUrl(text)).toBe(expected);
    expect(normalizeSuppression('linkedin', text)).toBe(expected);
  });

  it("when a LinkedIn or shop lead is read, then the person's and the contacts' profiles can match (the company page cannot)", () => {
    const person = {
      source: 'linkedin',
      businessName: 'Acme',
      email: null,
      phone: null,
      address: '',
      website: null,
      reviewScore: null,
      categories: [],
      socialProfiles: { facebook: null, instagram: null, linkedin: 'https://www.linkedin.com/in/Jane-Doe/' },
      person: {
        fullName: 'Jane Doe',
        title: 'CEO',
        seniority: 'c_suite',
        linkedinUrl: 'https://www.linkedin.com/in/Jane-Doe/',
        location: null,
      },
    } as unknown as Lead;
    expect(suppressionKeysOf(person, 'US')).toEqual([{ kind: 'linkedin', value: 'linkedin.com/in/jane-doe' }]);
    const shop = {
      source: 'shopify',
      businessName: 'Dune',
      email: null,
      phone: null,
      address: '',
      website: null,
      reviewScore: null,
      categories: [],
      socialProfiles: { facebook: null, instagram: null, linkedin: 'https://www.linkedin.com/company/dune' },
      store: { domain: 'dune.example', country: 'US', platform: 'shopify' },
      contacts: [{ name: 'A', title: 'CEO', email: null, phone: null, linkedinUrl: 'https://de.linkedin.com/in/a-b' }],
    } as Lead;
    expect(suppressionKeysOf(shop, 'US').filter((k) => k.kind === 'linkedin')).toEqual([
      { kind: 'linkedin', value: 'linkedin.com/in/a-b' },
    ]);
  });
});

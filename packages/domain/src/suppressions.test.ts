import type { Lead } from './lead';
import { normalizeDomain, normalizeEmail, normalizePhone, suppressionKeysOf } from './suppressions';

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
});

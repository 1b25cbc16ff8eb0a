import type { Lead, LinkedinLead, ShopifyLead } from '@leadgen/domain';
import { request } from '../../test/support/provider-search';
import { runSearch } from '../../test/support/sandbox-search';

const RECORD_FIELDS = ['businessName', 'email', 'phone', 'address', 'website', 'reviewScore', 'categories', 'socialProfiles'];

function emailsOf(lead: Lead): string[] {
  const contacts = lead.source === 'shopify' ? lead.contacts.map((c) => c.email) : [];
  return [lead.email, ...contacts].filter((e): e is string => e !== null);
}

describe('sandbox records: every source', () => {
  it.each(['google_maps', 'linkedin', 'shopify'] as const)(
    'when %s leads are produced, then every record field is present and the source is set',
    async (source) => {
      const { leads } = await runSearch(request({ source }));
      for (const lead of leads) {
        expect(lead.source).toBe(source);
        for (const field of RECORD_FIELDS) expect(lead).toHaveProperty(field);
        expect(Object.keys(lead.socialProfiles).sort()).toEqual(['facebook', 'instagram', 'linkedin']);
        expect(lead.businessName.length).toBeGreaterThan(0);
        expect((lead.address ?? '').length).toBeGreaterThan(0);
        expect(lead.categories.length).toBeGreaterThan(0);
      }
    },
  );

  it.each(['google_maps', 'linkedin', 'shopify'] as const)(
    'when %s leads carry websites and emails, then all are on .example domains',
    async (source) => {
      const { leads } = await runSearch(request({ source, state: 'GB', city: undefined }));
      let emails = 0;
      for (const lead of leads) {
        if (lead.website !== null) expect(new URL(lead.website).hostname).toMatch(/\.example$/);
        for (const email of emailsOf(lead)) {
          emails++;
          expect(email).toMatch(/^[a-z0-9.-]+@[a-z0-9-]+\.example$/);
        }
      }
      expect(emails).toBeGreaterThan(0);
    },
  );
});

describe('sandbox records: google_maps', () => {
  it('when a dentist in Austin is searched, then names, addresses and phones belong to Austin', async () => {
    const { leads, keys } = await runSearch(request());
    for (const key of keys) expect(key).toMatch(/^sandbox_place_[0-9a-f]+$/);
    for (const lead of leads) {
      expect(lead.address).toMatch(/^\d+ .+, Austin \d{5}, United States$/);
      expect(lead.categories[0]).toBe('dentist');
      if (lead.phone !== null) expect(lead.phone).toMatch(/^\+1 \(512\) 555-01\d\d$/);
      if (lead.reviewScore !== null) {
        expect(lead.reviewScore).toBeGreaterThanOrEqual(3);
        expect(lead.reviewScore).toBeLessThanOrEqual(5);
        expect(Math.round(lead.reviewScore * 10)).toBeCloseTo(lead.reviewScore * 10, 6);
      }
    }
    expect(leads.some((l) => l.businessName.includes('Austin'))).toBe(true);
    expect(leads.some((l) => /Dent/.test(l.businessName))).toBe(true);
  });

  it('when US businesses are searched without a city, then every phone is in the fictional 555-01xx range', async () => {
    const { leads } = await runSearch(request({ city: undefined }));
    const phones = leads.map((l) => l.phone).filter((p): p is string => p !== null);
    expect(phones.length).toBeGreaterThan(leads.length * 0.7);
    for (const phone of phones) expect(phone).toMatch(/^\+1 \(\d{3}\) 555-01\d\d$/);
  });

  it('when GB businesses are searched, then every phone is in an Ofcom drama range', async () => {
    const london = await runSearch(request({ state: 'GB', city: 'London' }));
    for (const phone of london.leads.map((l) => l.phone).filter((p) => p !== null)) expect(phone).toMatch(/^\+44 20 7946 0\d{3}$/);
    const anywhere = await runSearch(request({ state: 'GB', city: undefined }));
    for (const phone of anywhere.leads.map((l) => l.phone).filter((p) => p !== null)) {
      expect(phone).toMatch(/^\+44 (20 7946|1\d\d 496) 0\d{3}$/);
    }
    expect(anywhere.leads.every((l) => (l.address ?? '').endsWith(', United Kingdom'))).toBe(true);
  });

  it('when leads are counted, then most but not all carry each optional field', async () => {
    const { leads } = await runSearch(request());
    const share = (pick: (l: Lead) => unknown) => leads.filter((l) => pick(l) !== null).length / leads.length;
    for (const [pick, low, high] of [
      [(l: Lead) => l.email, 0.65, 0.95],
      [(l: Lead) => l.phone, 0.8, 0.98],
      [(l: Lead) => l.website, 0.7, 0.97],
      [(l: Lead) => l.reviewScore, 0.8, 0.98],
    ] as const) {
      expect(share(pick)).toBeGreaterThan(low);
      expect(share(pick)).toBeLessThan(high);
    }
  });
});

describe('sandbox records: linkedin', () => {
  it('when linkedin filters are given, then every person respects them', async () => {
    const asked = request({
      source: 'linkedin',
      state: 'DE',
      city: 'Berlin',
      linkedinParams: { title: ['Head of Sales', 'Sales Director'], seniority: ['head', 'director'], industry: ['Software Development'] },
    });
    const { leads, keys } = await runSearch(asked);
    expect(leads.length).toBeGreaterThan(0);
    leads.forEach((lead, i) => {
      const { person } = lead as LinkedinLead;
      expect(['Head of Sales', 'Sales Director']).toContain(person.title);
      expect(['head', 'director']).toContain(person.seniority);
      expect(person.location).toBe('Berlin, Germany');
      expect(person.linkedinUrl).toMatch(/^https:\/\/www\.linkedin\.com\/in\/[a-z-]+-[0-9a-f]{8}$/);
      expect(lead.socialProfiles.linkedin).toBe(person.linkedinUrl);
      expect(keys[i]).toBe(person.linkedinUrl);
      expect(lead.categories).toEqual(['Software Development']);
    });
  });

  it('when linkedinParams.country is given and no city, then the location is that country', async () => {
    const { leads } = await runSearch(request({ source: 'linkedin', state: 'US', city: undefined, linkedinParams: { country: 'FR' } }));
    for (const lead of leads as LinkedinLead[]) {
      expect(lead.person.location).toBe('France');
      expect(lead.address).toMatch(/, France$/);
      if (lead.email !== null) expect(lead.email).toMatch(/^[a-z]+(\.[a-z]+)?@[a-z0-9-]+\.example$/);
    }
  });

  it('when no title is asked for, then titles follow the person seniority', async () => {
    const { leads } = await runSearch(request({ source: 'linkedin', linkedinParams: { seniority: ['c_suite'] } }));
    for (const lead of leads as LinkedinLead[]) {
      expect(lead.person.seniority).toBe('c_suite');
      expect(lead.person.title).toMatch(/^Chief /);
    }
  });
});

describe('sandbox records: shopify', () => {
  it('when stores are produced, then each is keyed by its .example domain and links to it', async () => {
    const { leads, keys } = await runSearch(request({ source: 'shopify', category: 'candles', city: undefined }));
    (leads as ShopifyLead[]).forEach((lead, i) => {
      expect(keys[i]).toBe(lead.store.domain);
      expect(lead.store.domain).toMatch(/^[a-z0-9-]+\.example$/);
      expect(lead.website).toBe(`https://${lead.store.domain}`);
      expect(lead.store).toMatchObject({ domain: lead.store.domain, country: 'US', platform: 'shopify' });
      expect(lead.contacts.length).toBeLessThanOrEqual(3);
    });
  });

  it('when decisionMakerTitles are given, then only matching contacts are kept and most stores have one', async () => {
    const wanted = ['CEO', 'Head of Marketing'];
    const { leads } = await runSearch(request({ source: 'shopify', category: 'candles', decisionMakerTitles: wanted }));
    const stores = leads as ShopifyLead[];
    for (const contact of stores.flatMap((s) => s.contacts)) {
      const title = (contact.title ?? '').toLowerCase();
      expect(wanted.some((w) => title.includes(w.toLowerCase()) || w.toLowerCase().includes(title))).toBe(true);
    }
    expect(stores.filter((s) => s.contacts.length > 0).length).toBeGreaterThan(stores.length * 0.7);
  });

  it('when requiredChannels are given, then every store has each channel and the stores are those of the unfiltered search that have them', async () => {
    const asked = request({ source: 'shopify', category: 'candles', decisionMakerTitles: ['Founder'] });
    const unfiltered = await runSearch(asked);
    const filtered = await runSearch({ ...asked, requiredChannels: ['phone', 'linkedin'] });
    expect(filtered.leads.length).toBeGreaterThan(0);
    for (const lead of filtered.leads as ShopifyLead[]) {
      expect(lead.phone !== null || lead.contacts.some((c) => c.phone !== null)).toBe(true);
      expect(lead.socialProfiles.linkedin !== null || lead.contacts.some((c) => c.linkedinUrl !== null)).toBe(true);
    }
    const kept = (unfiltered.leads as ShopifyLead[])
      .filter((l) => l.phone !== null || l.contacts.some((c) => c.phone !== null))
      .filter((l) => l.socialProfiles.linkedin !== null || l.contacts.some((c) => c.linkedinUrl !== null))
      .map((l) => l.store.domain);
    expect(kept.length).toBeGreaterThan(0);
    expect(filtered.keys.slice(0, kept.length)).toEqual(kept);
  });

  it('when only=N is combined with requiredChannels, then exactly N matching stores come back', async () => {
    const { leads } = await runSearch(
      request({ source: 'shopify', keyword: 'sandbox:only=12', requiredChannels: ['email', 'phone', 'linkedin'] }),
    );
    expect(leads).toHaveLength(12);
  });
});

import type { GoogleMapsLead } from '@leadgen/domain';
import { enrichLeads, type WebsiteEnricherLike } from './enrich-leads';

function lead(overrides: Partial<GoogleMapsLead> = {}): GoogleMapsLead {
  return {
    source: 'google_maps', businessName: 'Café Rosa', email: null, phone: null, address: '', website: 'https://cafe-rosa.example',
    reviewScore: null, categories: [], socialProfiles: { facebook: null, instagram: null, linkedin: null }, ...overrides,
  };
}

const site: WebsiteEnricherLike = {
  enrich: async (_url, _signal, hints) => ({
    emails: [hints?.businessName === 'Café Rosa' ? 'cafe.rosa@gmail.com' : 'other@gmail.com'],
    socialProfiles: { facebook: 'https://www.facebook.com/caferosa', instagram: null, linkedin: null },
    provenance: {
      emailSource: 'contact page', emailBasis: 'contact block', pagesVisited: 3,
      profileSources: { facebook: 'home page', instagram: null, linkedin: null },
    },
  }),
};

describe('enrichLeads provenance', () => {
  it('when the website fills a gap, then the lead says which page and why, and what the upstream gave stays "upstream"', async () => {
    const leads = [lead(), lead({ email: 'owner@cafe-rosa.example', socialProfiles: { facebook: 'https://www.facebook.com/upstream', instagram: null, linkedin: null } })];
    await enrichLeads(leads, { enricher: site, concurrency: 2, deadlineMarginMs: 0 }, new AbortController().signal, Date.now() + 5_000);
    expect(leads[0]).toMatchObject({
      email: 'cafe.rosa@gmail.com',
      enrichment: { emailSource: 'contact page', emailBasis: 'contact block', pagesVisited: 3, profileSources: { facebook: 'home page', instagram: null, linkedin: null } },
    });
    expect(leads[1]).toMatchObject({
      email: 'owner@cafe-rosa.example',
      enrichment: { emailSource: 'upstream', emailBasis: null, profileSources: { facebook: 'upstream', instagram: null, linkedin: null } },
    });
  });
});

import { fromUpstream, type LeadProvenance, type ValueSource } from './lead-provenance';
import { leadNotice, objectionUrl } from './lead-notice';

const at = '2026-11-29T06:00:00.000Z';
const website = (sourceUrl: string, retrievedAt = '2026-11-29T06:00:02.000Z'): ValueSource => ({
  origin: 'website',
  upstream: null,
  sourceUrl,
  basis: 'site domain',
  retrievedAt,
});

describe('leadNotice (GDPR art. 14 and 21(4): what the person is told at the first contact)', () => {
  it('when a google_maps lead was enriched from its website, then its sources are the upstream by name and the pages, each once, and the objection link', () => {
    const places = fromUpstream('google_places', at, 'https://maps.google.com/?cid=1');
    const provenance: LeadProvenance = {
      email: website('https://smile.example/contact'),
      phone: places,
      website: places,
      socialProfiles: { facebook: website('https://smile.example/'), instagram: website('https://smile.example/contact'), linkedin: null },
    };
    expect(leadNotice({ retrievedAt: at, provenance }, 'https://leads.acme.example/')).toEqual({
      sources: ['https://smile.example/contact', 'Google Places', 'https://smile.example/'],
      retrievedAt: at,
      objectionUrl: 'https://leads.acme.example/api/v1/privacy/objections',
    });
  });

  it('when a shopify lead has contacts, then their sources count too; without PUBLIC_BASE_URL the link is null', () => {
    const store = fromUpstream('storeleads', at, 'https://shop.example/');
    const notice = leadNotice(
      {
        contacts: [
          { provenance: { email: fromUpstream('people_data_labs', '2026-11-28T00:00:00.000Z'), phone: null, linkedinUrl: store } },
        ],
      },
      null,
    );
    expect(notice).toEqual({ sources: ['People Data Labs', 'Store Leads'], retrievedAt: '2026-11-28T00:00:00.000Z', objectionUrl: null });
    expect(objectionUrl(null)).toBeNull();
  });

  it('when a lead has no provenance (delivered before decision 038), then no sources and no time, only the link', () => {
    expect(leadNotice({}, 'https://x.example')).toEqual({
      sources: [],
      retrievedAt: null,
      objectionUrl: 'https://x.example/api/v1/privacy/objections',
    });
  });
});

import { FIELD_MASK, createGooglePlacesProvider } from '../src/google-places';
import type { WebsiteEnricherLike } from '../src/enrichment';
import { UpstreamClient } from '../src/upstream';
import type { ProviderLead } from '../src/lead-provider';
import { components, type FakePlace, type GooglePlacesFake, makePlaces, startGooglePlacesFake } from '@leadgen/testing';
import { collect, context, FAST_RETRY, failure, request, StubEnricher } from './support/provider-search';

let fake: GooglePlacesFake;

beforeAll(async () => {
  fake = await startGooglePlacesFake('good-key');
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.apiDisabled = false;
  fake.places = makePlaces(150);
});

function provider(enricher: WebsiteEnricherLike | null = null, attemptTimeoutMs = 5_000, key = 'good-key', fields?: 'pro' | 'enterprise') {
  const client = new UpstreamClient({
    name: 'google_places',
    baseUrl: fake.url,
    headers: { 'x-goog-api-key': key },
    retry: FAST_RETRY,
    attemptTimeoutMs,
  });
  return createGooglePlacesProvider({ client, enrichment: enricher && { enricher, concurrency: 4, deadlineMarginMs: 200 }, fields });
}

const leadsOf = (pages: Array<{ leads: ProviderLead[] }>) => pages.flatMap((p) => p.leads);

describe('google_places adapter', () => {
  it('when places are found, then each is mapped onto the lead record from the masked fields only', async () => {
    fake.places = [
      {
        ...makePlaces(1)[0]!,
        id: 'ChIJabc',
        displayName: { text: 'Smile Dental', languageCode: 'en' },
        formattedAddress: '1 Congress Ave, Austin, TX 78701, USA',
        internationalPhoneNumber: '+1 512-555-0100',
        websiteUri: 'https://smile.example',
        rating: 4.7,
        types: ['dental_clinic', 'health', 'point_of_interest', 'establishment'],
      },
      { ...makePlaces(1, 'q')[0]!, internationalPhoneNumber: undefined, rating: undefined, websiteUri: undefined },
    ];
    const pages = await collect(provider(), request({ category: 'Dentist', keyword: 'kids' }), context());
    const [first, second] = leadsOf(pages);
    const fromGoogle = {
      origin: 'upstream',
      upstream: 'google_places',
      sourceUrl: 'https://maps.google.com/?cid=1000000',
      retrievedAt: expect.any(String),
    };
    expect(first).toEqual({
      dedupKey: 'ChIJabc',
      lead: {
        source: 'google_maps',
        businessName: 'Smile Dental',
        email: null,
        phone: '+1 512-555-0100',
        address: '1 Congress Ave, Austin, TX 78701, USA',
        website: 'https://smile.example',
        reviewScore: 4.7,
        categories: ['Dentist', 'dental clinic', 'health'],
        socialProfiles: { facebook: null, instagram: null, linkedin: null },
        // Decision 038: every field of the tier paid for, from the fake's documented answer.
        place: {
          placeId: 'ChIJabc',
          location: { lat: 30.27, lng: -97.74 },
          addressComponents: { street: null, locality: 'Austin', postalCode: null, region: 'TX', countryCode: 'US' },
          internationalPhone: '+15125550100',
          reviewCount: 0,
          priceLevel: 'moderate',
          businessStatus: 'OPERATIONAL',
          openingHours: {
            weekdayDescriptions: expect.arrayContaining(['Monday: 9:00 AM – 5:00 PM', 'Sunday: Closed']),
            periods: expect.arrayContaining([{ open: { day: 1, hour: 9, minute: 0 }, close: { day: 1, hour: 17, minute: 0 } }]),
          },
          googleMapsUri: 'https://maps.google.com/?cid=1000000',
          primaryType: 'dental_clinic',
          types: ['dental_clinic', 'health', 'point_of_interest', 'establishment'],
          utcOffsetMinutes: -360,
        },
        retrievedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        provenance: {
          email: null,
          phone: fromGoogle,
          website: fromGoogle,
          socialProfiles: { facebook: null, instagram: null, linkedin: null },
        },
      },
    });
    expect(second?.lead).toMatchObject({ phone: '(512) 555-1000', reviewScore: null, website: null });
    const sent = fake.requests[0]!;
    expect(sent.headers['x-goog-fieldmask']).toBe(FIELD_MASK);
    expect(String(sent.headers['x-goog-fieldmask']).split(',')).toEqual(
      expect.arrayContaining(['places.userRatingCount', 'places.regularOpeningHours', 'places.googleMapsUri', 'places.utcOffsetMinutes']),
    );
    expect(sent.body).toMatchObject({
      textQuery: 'Dentist kids in Austin, United States',
      regionCode: 'US',
      pageSize: 20,
      includePureServiceAreaBusinesses: true,
    });
    expect(String(sent.headers['x-goog-fieldmask']).split(',')).toEqual(
      expect.arrayContaining(['places.addressComponents', 'places.pureServiceAreaBusiness']),
    );
  });

  it('when a place is closed permanently or temporarily, then it is filtered and counted, and includeClosed lets only the temporarily closed through', async () => {
    fake.places = makePlaces(5).map((p, i) => ({
      ...p,
      businessStatus: ['OPERATIONAL', 'CLOSED_PERMANENTLY', 'CLOSED_TEMPORARILY', 'OPERATIONAL', undefined][i],
    }));
    const pages = await collect(provider(), request(), context());
    expect(
      leadsOf(pages)
        .map((l) => l.dedupKey)
        .sort(),
    ).toEqual(['ChIJp0000', 'ChIJp0003', 'ChIJp0004']);
    expect(pages.reduce((n, p) => n + (p.filtered ?? 0), 0)).toBe(2);
    const open = await collect(provider(), request({ filters: { includeClosed: true } }), context());
    expect(
      leadsOf(open)
        .map((l) => l.dedupKey)
        .sort(),
    ).toEqual(['ChIJp0000', 'ChIJp0002', 'ChIJp0003', 'ChIJp0004']);
    expect(open.reduce((n, p) => n + (p.filtered ?? 0), 0)).toBe(1);
  });

  it('when filters are asked for, then Google gets minRating (in its 0.5 steps) and priceLevels, and every filter is checked on the lead and counted', async () => {
    fake.places = makePlaces(40).map((p, i) => ({
      ...p,
      priceLevel: i % 4 === 0 ? 'PRICE_LEVEL_EXPENSIVE' : 'PRICE_LEVEL_MODERATE',
      websiteUri: i % 5 === 0 ? undefined : p.websiteUri,
    }));
    const filters = { minRating: 3.7, minReviewCount: 50, priceLevels: ['moderate' as const], requireWebsite: true as const };
    const pages = await collect(provider(), request({ filters }), context());
    const leads = leadsOf(pages).map(
      (l) => l.lead as { reviewScore: number; website: string | null; place: { reviewCount: number; priceLevel: string } },
    );
    expect(fake.requests[0]!.body).toMatchObject({ minRating: 3.5, priceLevels: ['PRICE_LEVEL_MODERATE'] });
    // what Google returned (rating >= 3.5, moderate) minus what the worker's exact checks left out
    const returned = fake.answers.flat().length;
    const filtered = pages.reduce((n, p) => n + (p.filtered ?? 0), 0);
    expect(leads.length + filtered).toBe(returned);
    expect(filtered).toBeGreaterThan(0);
    expect(leads.length).toBeGreaterThan(0);
    for (const lead of leads) {
      expect(lead.reviewScore).toBeGreaterThanOrEqual(3.7);
      expect(lead.place.reviewCount).toBeGreaterThanOrEqual(50);
      expect(lead.place.priceLevel).toBe('moderate');
      expect(lead.website).not.toBeNull();
    }
  });

  it('when requireEmail is asked for, then only places whose website gave an email are delivered, with the page it was read on', async () => {
    fake.places = makePlaces(6);
    const enricher: WebsiteEnricherLike = {
      enrich: (url) =>
        Promise.resolve({
          emails: url.includes('p1.') || url.includes('p4.') ? [`info@${new URL(url).hostname}`] : [],
          socialProfiles: { facebook: null, instagram: null, linkedin: null },
          provenance: {
            emailSource: 'contact page',
            emailBasis: 'site domain',
            profileSources: { facebook: null, instagram: null, linkedin: null },
            pagesVisited: 2,
            // decision 040's crawler attribution, which fills decision 038's provenance
            sources: {
              emails: { [`info@${new URL(url).hostname}`]: { sourceUrl: `${url}/contact`, basis: 'site domain' } },
              facebook: null,
              instagram: null,
              linkedin: null,
            },
          },
        }),
    };
    const pages = await collect(provider(enricher), request({ filters: { requireEmail: true } }), context());
    const leads = leadsOf(pages);
    expect(leads.map((l) => l.dedupKey).sort()).toEqual(['ChIJp0001', 'ChIJp0004']);
    expect(pages.reduce((n, p) => n + (p.filtered ?? 0), 0)).toBe(4);
    expect(leads.find((l) => l.dedupKey === 'ChIJp0001')!.lead.provenance?.email).toEqual({
      origin: 'website',
      upstream: null,
      sourceUrl: 'https://business-p1.example/contact',
      basis: 'site domain',
      retrievedAt: expect.any(String),
    });
  });

  it('when GOOGLE_PLACES_FIELDS is pro, then the mask has no Enterprise field and the lead has those fields null', async () => {
    fake.places = makePlaces(3);
    const pages = await collect(provider(null, 5_000, 'good-key', 'pro'), request(), context());
    const mask = String(fake.requests[0]!.headers['x-goog-fieldmask']).split(',');
    for (const field of [
      'places.websiteUri',
      'places.internationalPhoneNumber',
      'places.nationalPhoneNumber',
      'places.rating',
      'places.userRatingCount',
      'places.priceLevel',
      'places.regularOpeningHours',
    ])
      expect(mask).not.toContain(field);
    expect(mask).toEqual(expect.arrayContaining(['places.id', 'places.displayName', 'places.googleMapsUri', 'places.businessStatus']));
    const lead = leadsOf(pages)[0]!.lead as unknown as { phone: unknown; website: unknown; place: Record<string, unknown> };
    expect(lead).toMatchObject({
      phone: null,
      website: null,
      place: { reviewCount: null, priceLevel: null, openingHours: null, internationalPhone: null },
    });
    expect(lead.place.googleMapsUri).toMatch(/^https:\/\/maps\.google\.com/);
  });

  it('when the area has no match, then the answer {} ends the search with no lead after one call', async () => {
    fake.places = [];
    const pages = await collect(provider(), request(), context());
    expect(leadsOf(pages)).toEqual([]);
    expect(pages.at(-1)?.cursor ?? null).toBeNull();
    expect(fake.requests).toHaveLength(1);
  });

  it('when the area has fewer places than one query returns, then the other variants are not tried', async () => {
    fake.places = makePlaces(45);
    const pages = await collect(provider(), request(), context());
    expect(leadsOf(pages)).toHaveLength(45);
    expect(fake.requests).toHaveLength(3);
    expect(pages.at(-1)?.cursor).toBeNull();
  });

  it('when 100 dentists are asked for in a city with 150, then rectangles get past 60, and every call after the first brings places not seen before', async () => {
    const pages = await collect(provider(), request({ maxResults: 100 }), context(), 100);
    const keys = leadsOf(pages).map((l) => l.dedupKey);
    expect(keys.length).toBeGreaterThanOrEqual(100);
    expect(new Set(keys).size).toBe(keys.length);
    const seen = new Set<string>();
    for (const answer of fake.answers) {
      expect(answer.some((id) => !seen.has(id))).toBe(true); // no call returned only duplicates
      answer.forEach((id) => seen.add(id));
    }
    const bodies = fake.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies[0]).toMatchObject({ textQuery: 'dentist in Austin, United States' });
    expect(bodies[0]).not.toHaveProperty('locationRestriction');
    // After the city query: the text names no place, and a rectangle restricts where Google looks.
    const later = bodies.filter((b) => b.pageToken === undefined).slice(1);
    expect(later.length).toBeGreaterThan(0);
    for (const body of later) {
      expect(body).toMatchObject({ textQuery: 'dentist', locationRestriction: { rectangle: expect.any(Object) } });
      expect(body).not.toHaveProperty('locationBias');
    }
    expect(bodies.every((b) => (b.pageSize as number) <= 20)).toBe(true);
  });

  it('when the text names the city, then a location bias changes nothing (the fake answers as Google documents, which is why bias variants were wasted)', async () => {
    const client = new UpstreamClient({
      name: 'google_places',
      baseUrl: fake.url,
      headers: { 'x-goog-api-key': 'good-key' },
      retry: FAST_RETRY,
    });
    const ask = async (extra: Record<string, unknown>) => {
      const response = await client.request({
        method: 'POST',
        path: 'v1/places:searchText',
        headers: { 'x-goog-fieldmask': 'places.id' },
        body: { textQuery: 'dentist in Austin', ...extra },
        signal: new AbortController().signal,
        deadline: Date.now() + 5_000,
      });
      return (response.body as { places: Array<{ id: string }> }).places.map((p) => p.id);
    };
    const plain = await ask({});
    const biased = await ask({ locationBias: { circle: { center: { latitude: 30.36, longitude: -97.87 }, radius: 2_000 } } });
    expect(biased).toEqual(plain);
  });

  it('when Google lists places across the border (regionCode only biases), then only places in the requested country are delivered', async () => {
    const abroad = makePlaces(5, 'mx').map((p) => ({
      ...p,
      formattedAddress: 'Av. Juárez 1, Ciudad Juárez, Chih., México',
      addressComponents: components('Ciudad Juárez', 'Chih.', 'MX', 'Mexico'),
    }));
    const unknown = makePlaces(2, 'nc').map(({ addressComponents: _none, ...p }) => p);
    fake.places = [...makePlaces(10), ...abroad, ...unknown];
    const leads = leadsOf(await collect(provider(), request({ maxResults: 50 }), context()));
    expect(leads.map((l) => l.dedupKey).sort()).toEqual(
      makePlaces(10)
        .map((p) => p.id)
        .sort(),
    );
  });

  it('when service-area businesses match, then they are asked for and delivered with address null and the locality they serve', async () => {
    const plumber: FakePlace = {
      ...makePlaces(1, 'sab')[0]!,
      pureServiceAreaBusiness: true,
      formattedAddress: undefined,
      location: undefined,
      serviceAt: { latitude: 30.3, longitude: -97.75 },
    };
    const { addressComponents: _none, ...noArea } = {
      ...makePlaces(1, 'sabx')[0]!,
      pureServiceAreaBusiness: true,
      formattedAddress: undefined,
      location: undefined,
    };
    fake.places = [
      ...makePlaces(3),
      plumber,
      { ...noArea, addressComponents: [{ longText: 'United States', shortText: 'US', types: ['country', 'political'] }] },
    ];
    const leads = leadsOf(await collect(provider(), request({ category: 'plumber' }), context()));
    const byKey = Object.fromEntries(leads.map((l) => [l.dedupKey, l.lead]));
    expect(Object.keys(byKey)).toHaveLength(5);
    expect(byKey.ChIJsab0000).toMatchObject({
      address: null,
      serviceArea: 'Austin',
      businessName: 'Business sab0',
      phone: '+1 512-555-1000',
    });
    expect(byKey.ChIJsabx0000).toMatchObject({ address: null, serviceArea: null });
    expect(byKey.ChIJp0000).not.toHaveProperty('serviceArea');
    expect(byKey.ChIJp0000).toMatchObject({ address: '0 Main St, Austin, TX 78701, USA' });
  });

  it('when a replacement worker resumes from a cursor, then it continues with the next page and not from the start', async () => {
    const req = request({ maxResults: 100 });
    const firstRun = await collect(provider(), req, context(), 1);
    const cursor = firstRun[0]!.cursor;
    expect(cursor).not.toBeNull();
    fake.reset();
    const resumed = await collect(provider(), req, context({ cursor }), 1);
    expect((fake.requests[0]!.body as Record<string, unknown>).pageToken).toEqual(expect.any(String));
    const before = new Set(firstRun[0]!.leads.map((l) => l.dedupKey));
    expect(resumed[0]!.leads.some((l) => before.has(l.dedupKey))).toBe(false);
  });

  it('when the stored page token has expired, then the variant restarts from its first page', async () => {
    const req = request({ maxResults: 100 });
    const cursor = (await collect(provider(), req, context(), 1))[0]!.cursor;
    fake.expireTokens();
    fake.reset();
    const resumed = await collect(provider(), req, context({ cursor }), 1);
    expect(resumed[0]!.leads.length).toBeGreaterThan(0);
    expect((fake.requests[0]!.body as Record<string, unknown>).pageToken).toBeDefined();
    expect((fake.requests[1]!.body as Record<string, unknown>).pageToken).toBeUndefined();
  });

  it('when an attempt gets no complete answer within its own timeout, then it is retried before giving up', async () => {
    fake.failNext('hang');
    const pages = await collect(provider(null, 300), request(), context(), 1);
    expect(pages[0]!.leads.length).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(2);
  });

  it('when websites are enriched, then email and social profiles are filled in and a failing website leaves its lead as it was', async () => {
    fake.places = makePlaces(3);
    const enricher = new StubEnricher({
      'https://business-p0.example': { emails: ['hello@business-p0.example'], instagram: 'https://instagram.com/p0' },
      'https://business-p1.example': 'throw',
    });
    const leads = leadsOf(await collect(provider(enricher), request(), context()));
    const byKey = Object.fromEntries(leads.map((l) => [l.dedupKey, l.lead]));
    expect(byKey.ChIJp0000).toMatchObject({
      email: 'hello@business-p0.example',
      socialProfiles: { instagram: 'https://instagram.com/p0', facebook: null },
    });
    expect(byKey.ChIJp0001).toMatchObject({ email: null });
    expect(leads).toHaveLength(3);
    expect(enricher.asked).toHaveLength(3);
  });

  it('when enrichment is still running close to the deadline, then the page is handed over un-enriched in time', async () => {
    fake.places = makePlaces(2);
    const enricher = new StubEnricher({ 'https://business-p0.example': 'hang' });
    const started = Date.now();
    const pages = await collect(provider(enricher), request(), context({ deadline: Date.now() + 700 }));
    expect(Date.now() - started).toBeLessThan(700);
    expect(leadsOf(pages)).toHaveLength(2);
  });

  it('when the job is cancelled during enrichment, then the search ends with the signal reason', async () => {
    fake.places = makePlaces(2);
    const controller = new AbortController();
    const reason = new Error('cancelled');
    setTimeout(() => controller.abort(reason), 100);
    const error = await failure(
      provider(new StubEnricher({ 'https://business-p0.example': 'hang' })),
      request(),
      context({ signal: controller.signal }),
    );
    expect(error).toBe(reason);
  });

  describe('errors as Google documents them (UPSTREAM.md)', () => {
    it('when the key is wrong or expired (400 INVALID_ARGUMENT, reason API_KEY_INVALID), then the job ends provider_unauthorized without a retry', async () => {
      const error = await failure(provider(null, 5_000, 'expired-key'), request(), context());
      expect(error).toMatchObject({ reason: 'provider_unauthorized', upstreamStatus: 400 });
      expect((error as Error).message).toContain('API_KEY_INVALID');
      expect(fake.requests).toHaveLength(1);
    });

    it('when a resumed job meets a wrong key, then it is not mistaken for an expired page token', async () => {
      const cursor = JSON.stringify({ v: 2, area: null, pageToken: 'stale', pending: [], bounds: null, returned: 20, fresh: 20, asked: 0 });
      const error = await failure(provider(null, 5_000, 'expired-key'), request(), context({ cursor }));
      expect(error).toMatchObject({ reason: 'provider_unauthorized' });
      expect(fake.requests).toHaveLength(1);
    });

    it('when the API is disabled for the key (403 PERMISSION_DENIED), then the job ends provider_unauthorized', async () => {
      fake.apiDisabled = true;
      const error = await failure(provider(), request(), context());
      expect(error).toMatchObject({ reason: 'provider_unauthorized', upstreamStatus: 403 });
      expect((error as Error).message).toContain('PERMISSION_DENIED');
    });

    it('when a request is malformed (400 INVALID_ARGUMENT without a key reason), then it is provider_error, not a refused key', async () => {
      fake.failNext({ status: 400 });
      expect(await failure(provider(), request(), context())).toMatchObject({ reason: 'provider_error', upstreamStatus: 400 });
    });

    it('when quota runs out (429 RESOURCE_EXHAUSTED without Retry-After), then it is retried with backoff and the page still arrives', async () => {
      fake.failNext({ status: 429 }, { status: 429 });
      const pages = await collect(provider(), request(), context(), 1);
      expect(pages[0]!.leads.length).toBeGreaterThan(0);
      expect(fake.requests).toHaveLength(3);
    });

    it('when a 429 carries google.rpc.RetryInfo, then the retry waits its retryDelay', async () => {
      fake.retryDelay = '0.6s';
      fake.failNext({ status: 429 });
      const started = Date.now();
      const pages = await collect(provider(), request(), context(), 1);
      expect(pages[0]!.leads.length).toBeGreaterThan(0);
      expect(fake.requests).toHaveLength(2);
      expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(600);
      expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    });

    it('when quota stays exhausted, then the job ends provider_error with the upstream status in the message', async () => {
      fake.failAlways({ status: 429 });
      const error = await failure(provider(), request(), context());
      expect(error).toMatchObject({ reason: 'provider_error', upstreamStatus: 429 });
      expect((error as Error).message).toContain('RESOURCE_EXHAUSTED');
    });
  });
});

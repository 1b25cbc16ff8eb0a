import { ProviderError } from '../lead-provider';
import { createSandboxProvider } from './sandbox-provider';
import { sandboxPlaceViewport } from './sandbox-geo';
import { context, request } from '../../test/support/provider-search';
import { runSearch } from '../../test/support/sandbox-search';

describe('sandbox provider: paging and determinism', () => {
  it('when built for a source, then it names itself sandbox and serves that source', () => {
    const provider = createSandboxProvider('shopify', { pageDelayMs: 0 });
    expect(provider.name).toBe('sandbox');
    expect(provider.source).toBe('shopify');
  });

  it('when the same request runs twice, then the pages are identical but for when they were retrieved', async () => {
    // retrievedAt says when the (sandbox) upstream answered: the one field that is the time, not the record
    const untimed = (pages: unknown) => JSON.parse(JSON.stringify(pages).replace(/"retrievedAt":"[^"]+"/g, '"retrievedAt":"T"')) as unknown;
    const first = await runSearch(request());
    const second = await runSearch(request());
    expect(untimed(second.pages)).toEqual(untimed(first.pages));
  });

  it('when a sandbox lead is made, then it carries every field of decision 038, the same for the same lead', async () => {
    for (const source of ['google_maps', 'linkedin', 'shopify'] as const) {
      const [a, b] = [await runSearch(request({ source })), await runSearch(request({ source }))];
      const lead = a.leads[0] as unknown as Record<string, unknown>;
      expect(lead.retrievedAt).toEqual(expect.any(String));
      expect(lead.provenance).toMatchObject({
        website: lead.website === null ? null : expect.objectContaining({ origin: 'upstream', upstream: 'sandbox' }),
      });
      if (source === 'google_maps') {
        expect(lead.place).toEqual({
          placeId: a.keys[0],
          location: { lat: expect.any(Number), lng: expect.any(Number) },
          addressComponents: expect.objectContaining({ countryCode: 'US' }),
          internationalPhone: lead.phone === null ? null : expect.stringMatching(/^\+\d{8,15}$/),
          reviewCount: lead.reviewScore === null ? null : expect.any(Number),
          priceLevel: (lead.place as { priceLevel: unknown }).priceLevel,
          businessStatus: 'OPERATIONAL',
          openingHours: { weekdayDescriptions: expect.arrayContaining([expect.stringMatching(/^Monday: /)]), periods: expect.any(Array) },
          googleMapsUri: expect.stringMatching(/^https:\/\/maps\.google\.com\/\?cid=\d+$/),
          primaryType: expect.any(String),
          types: expect.arrayContaining(['establishment']),
          utcOffsetMinutes: -300,
        });
        expect([null, 'inexpensive', 'moderate', 'expensive']).toContain((lead.place as { priceLevel: unknown }).priceLevel);
        expect((b.leads[0] as unknown as Record<string, unknown>).place).toEqual(lead.place);
      }
      if (source === 'linkedin')
        expect(lead.person).toMatchObject({ jobStartDate: expect.stringMatching(/^\d{4}-\d\d$/), company: expect.any(Object) });
      if (source === 'shopify')
        expect(lead.store).toMatchObject({
          estimatedMonthlySales: expect.any(Number),
          productCount: expect.any(Number),
          technologies: expect.any(Array),
        });
    }
  });

  it('when a shopify search names a Store Leads category, then each store carries its path, as the real adapter records it', async () => {
    const decor = await runSearch(request({ source: 'shopify', category: 'home decor' }));
    for (const lead of decor.leads)
      expect((lead as { store: unknown }).store).toMatchObject({
        categoryPath: '/Home & Garden/Home & Interior Decor',
        categoryPaths: ['/Home & Garden/Home & Interior Decor'],
      });
    const unknown = await runSearch(request({ source: 'shopify', category: 'zzqx widgets' }));
    expect((unknown.leads[0] as { store: unknown }).store).toMatchObject({ categoryPath: null, categoryPaths: [] });
  });

  it('when a google_maps lead is made, then it lies in the city its address names, whose postal code its components repeat', async () => {
    const austin = sandboxPlaceViewport('Austin, US', null);
    for (const city of ['Austin', undefined]) {
      const { leads } = await runSearch(request({ city }));
      for (const lead of leads) {
        if (lead.source !== 'google_maps') throw new Error('not a place');
        const location = lead.place!.location!;
        const addressComponents = lead.place!.addressComponents!;
        const locality = addressComponents.locality!;
        expect(lead.address).toContain(locality);
        if (city) expect(locality).toBe(city);
        expect(lead.address).toContain(addressComponents.postalCode!);
        // within the viewport a search of that city resolves to: a quote and a job see the same town
        const viewport = sandboxPlaceViewport(`${locality}, US`, null);
        expect(location.lat).toBeGreaterThanOrEqual(viewport.low.latitude);
        expect(location.lat).toBeLessThanOrEqual(viewport.high.latitude);
        expect(location.lng).toBeGreaterThanOrEqual(viewport.low.longitude);
        expect(location.lng).toBeLessThanOrEqual(viewport.high.longitude);
      }
    }
    // Austin, Texas: 30.27° N, 97.74° W
    expect(austin.low.latitude).toBeCloseTo(30.217, 2);
    expect(austin.low.longitude).toBeCloseTo(-97.793, 2);
  });

  it('when a sandbox job has filters, then the leads that fail them are left out and counted', async () => {
    const { pages } = await runSearch(request({ keyword: 'sandbox:only=30', filters: { minRating: 4.5 } }));
    const leads = pages.flatMap((p) => p.leads);
    const filtered = pages.reduce((n, p) => n + (p.filtered ?? 0), 0);
    expect(leads.length + filtered).toBe(30);
    expect(filtered).toBeGreaterThan(0);
    for (const { lead } of leads) expect(lead.reviewScore).toBeGreaterThanOrEqual(4.5);
  });

  it('when only maxResults or the letter case of the place differs, then the leads are the same', async () => {
    const base = await runSearch(request({ keyword: 'sandbox:only=20' }));
    const other = await runSearch(request({ keyword: 'sandbox:only=20;delay=0', maxResults: 100, city: 'austin', state: 'us' }));
    expect(other.keys).toEqual(base.keys);
  });

  it('when the category, the city or the country differs, then the leads differ', async () => {
    const base = await runSearch(request({ keyword: 'sandbox:only=10' }));
    for (const change of [{ category: 'plumber' }, { city: 'Dallas' }, { state: 'CA', city: undefined }]) {
      const other = await runSearch(request({ keyword: 'sandbox:only=10', ...change }));
      expect(other.keys).not.toEqual(base.keys);
      expect(other.leads.map((l) => l.businessName)).not.toEqual(base.leads.map((l) => l.businessName));
    }
  });

  it('when no directive limits the matches, then the search has between 120 and 400 of them', async () => {
    for (const category of ['dentist', 'plumber', 'yoga studio', 'bakery', 'tattoo parlour']) {
      const { leads, pages, error } = await runSearch(request({ category }));
      expect(error).toBeNull();
      expect(leads.length).toBeGreaterThanOrEqual(120);
      expect(leads.length).toBeLessThanOrEqual(400);
      expect(pages.at(-1)?.cursor).toBeNull();
    }
  });

  it('when only=35, then pages of 10, 10, 10 and 5 come back and the last has no cursor', async () => {
    const { pages, error } = await runSearch(request({ keyword: 'sandbox:only=35;delay=5' }));
    expect(error).toBeNull();
    expect(pages.map((p) => p.leads.length)).toEqual([10, 10, 10, 5]);
    expect(pages.map((p) => p.cursor)).toEqual(['10', '20', '30', null]);
  });

  it('when a full run is compared with a run resumed from a cursor, then the resumed run gives exactly the remaining leads', async () => {
    const full = await runSearch(request());
    const cursor = full.pages[3]?.cursor ?? null;
    expect(cursor).not.toBeNull();
    const resumed = await runSearch(request(), { cursor });
    expect(resumed.keys).toEqual(full.keys.slice(40));
    expect(resumed.pages.at(-1)?.cursor).toBeNull();
  });

  it('when every dedup key of a run is collected, then none repeats', async () => {
    for (const source of ['google_maps', 'linkedin', 'shopify'] as const) {
      const { keys } = await runSearch(request({ source }));
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('when the cursor is not one the sandbox issued, then it fails as an upstream would', async () => {
    const { error, pages } = await runSearch(request(), { cursor: 'page-two' });
    expect(pages).toHaveLength(0);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('provider_error');
  });

  it('when the consumer stops after one page, then the search ends without further pages', async () => {
    const provider = createSandboxProvider('google_maps', { pageDelayMs: 0 });
    let pages = 0;
    for await (const page of provider.search(request(), context())) {
      pages++;
      expect(page.leads).toHaveLength(10);
      break;
    }
    expect(pages).toBe(1);
  });
});

describe('sandbox provider: directives', () => {
  it('when the keyword says empty, then one empty last page comes back', async () => {
    const { pages, error } = await runSearch(request({ keyword: 'sandbox:empty' }));
    expect(error).toBeNull();
    expect(pages).toEqual([{ leads: [], cursor: null }]);
  });

  it('when the keyword says fail, then a provider_error is thrown before any page', async () => {
    const { pages, error } = await runSearch(request({ keyword: 'sandbox:fail' }));
    expect(pages).toHaveLength(0);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('provider_error');
  });

  it('when the keyword says fail_after=15, then exactly 15 leads come back before a provider_error', async () => {
    const { pages, leads, error } = await runSearch(request({ keyword: 'sandbox:fail_after=15' }));
    expect(pages.map((p) => p.leads.length)).toEqual([10, 5]);
    expect(leads).toHaveLength(15);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('provider_error');
  });

  it('when a fail_after run resumes past the failure point, then it fails again at once', async () => {
    const { pages, error } = await runSearch(request({ keyword: 'sandbox:fail_after=15' }), { cursor: '15' });
    expect(pages).toHaveLength(0);
    expect((error as ProviderError).reason).toBe('provider_error');
  });

  it('when fewer matches exist than fail_after, then the search simply runs dry', async () => {
    const { leads, error, pages } = await runSearch(request({ keyword: 'sandbox:only=8;fail_after=20' }));
    expect(error).toBeNull();
    expect(leads).toHaveLength(8);
    expect(pages.at(-1)?.cursor).toBeNull();
  });

  it('when the keyword says unauthorized, then provider_unauthorized with status 401 is thrown before any page', async () => {
    const { pages, error } = await runSearch(request({ keyword: 'sandbox:unauthorized' }));
    expect(pages).toHaveLength(0);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('provider_unauthorized');
    expect((error as ProviderError).upstreamStatus).toBe(401);
  });

  it('when directives are added, then the leads they let through are the same as without them', async () => {
    const plain = await runSearch(request());
    const steered = await runSearch(request({ keyword: 'sandbox:only=25;delay=1' }));
    expect(steered.keys).toEqual(plain.keys.slice(0, 25));
  });

  it('when the directives cannot be parsed, then the search runs unsteered', async () => {
    const { leads, error } = await runSearch(request({ keyword: 'sandbox:bogus' }));
    expect(error).toBeNull();
    expect(leads.length).toBeGreaterThanOrEqual(120);
  });

  it('when delay=MS is given, then each page waits that long', async () => {
    const started = Date.now();
    const { pages } = await runSearch(request({ keyword: 'sandbox:only=15;delay=60' }));
    expect(pages).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});

describe('sandbox provider: cancellation', () => {
  it('when the signal aborts during a long delay, then the search rejects promptly with the signal reason', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by owner');
    setTimeout(() => controller.abort(reason), 50);
    const started = Date.now();
    const { pages, error } = await runSearch(request({ keyword: 'sandbox:delay=5000' }), { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(pages).toHaveLength(0);
    expect(error).toBe(reason);
  });

  it('when the signal is already aborted, then no page is produced', async () => {
    const controller = new AbortController();
    controller.abort();
    const { pages, error } = await runSearch(request(), { signal: controller.signal });
    expect(pages).toHaveLength(0);
    expect((error as Error).name).toBe('AbortError');
  });

  it('when the signal aborts between pages, then the next page is not produced', async () => {
    const controller = new AbortController();
    const provider = createSandboxProvider('google_maps', { pageDelayMs: 0 });
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const page of provider.search(request(), context({ signal: controller.signal }))) {
          seen.push(page.leads.length);
          controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual([10]);
  });
});

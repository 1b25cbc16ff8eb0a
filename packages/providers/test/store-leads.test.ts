import type { ShopifyLead } from '@leadgen/domain';
import type { WebsiteEnricherLike } from '../src/enrichment';
import { UpstreamClient } from '../src/upstream';
import { createCompanyPeopleFinder } from '../src/people-data-labs';
import { createStoreLeadsProvider } from '../src/store-leads';
import { categorySpellings, STORELEADS_CATEGORY_PATHS } from '@leadgen/domain';
import { makePeople, type PdlFake, startPdlFake } from '@leadgen/testing';
import { makeStores, type StoreLeadsFake, startStoreLeadsFake } from '@leadgen/testing';
import { collect, context, FAST_RETRY, failure, request, StubEnricher } from './support/provider-search';

let stores: StoreLeadsFake;
let pdl: PdlFake;

beforeAll(async () => {
  [stores, pdl] = await Promise.all([startStoreLeadsFake('sl-key'), startPdlFake('pdl-key')]);
});
afterAll(() => Promise.all([stores.close(), pdl.close()]));
beforeEach(() => {
  stores.reset();
  pdl.reset();
  stores.stores = makeStores(30);
  pdl.people = [];
});

function provider(options: { enricher?: WebsiteEnricherLike; withPdl?: boolean; pdlKey?: string } = {}) {
  const client = new UpstreamClient({
    name: 'storeleads',
    baseUrl: stores.url,
    headers: { authorization: 'Bearer sl-key' },
    retry: FAST_RETRY,
  });
  const pdlClient = new UpstreamClient({
    name: 'people_data_labs',
    baseUrl: pdl.url,
    headers: { 'x-api-key': options.pdlKey ?? 'pdl-key' },
    retry: FAST_RETRY,
  });
  return createStoreLeadsProvider({
    client,
    people: options.withPdl === false ? null : createCompanyPeopleFinder(pdlClient),
    enrichment: options.enricher ? { enricher: options.enricher, concurrency: 4, deadlineMarginMs: 200 } : null,
  });
}

const shopify = (overrides: Parameters<typeof request>[0] = {}) =>
  request({ source: 'shopify', category: 'apparel', city: undefined, ...overrides });
const leadsOf = (pages: Array<{ leads: Array<{ lead: unknown }> }>) => pages.flatMap((p) => p.leads.map((l) => l.lead as ShopifyLead));

describe('storeleads adapter', () => {
  it('when a store is found, then it is mapped onto one row with its store object and contact_info', async () => {
    stores.stores = makeStores(1, () => ({
      name: 'WWW.Allbirds.com',
      merchant_name: 'Allbirds',
      title: 'Allbirds | Free shipping over $75',
      country_code: 'US',
      street_address: '730 Montgomery St',
      city: 'San Francisco',
      state: 'CA',
      postal_code: '94111',
      categories: ['/Apparel/Footwear/', '/Apparel/'],
      contact_info: [
        { type: 'email', value: 'help@allbirds.com', source: '/pages/contact' },
        { type: 'phone', value: '+1 888-963-8944' },
        { type: 'instagram', value: 'instagram.com/allbirds' },
        { type: 'linkedin', value: 'https://www.linkedin.com/company/allbirds' },
        { type: 'email', value: 'help@allbirds.com' },
      ],
    }));
    const [row] = (await collect(provider({ withPdl: false }), shopify(), context()))[0]!.leads;
    const from = (sourceUrl: string) => ({ origin: 'upstream', upstream: 'storeleads', sourceUrl, retrievedAt: expect.any(String) });
    const [contactPage, home] = [from('https://allbirds.com/pages/contact'), from('https://allbirds.com/')];
    expect(row).toEqual({
      dedupKey: 'allbirds.com',
      lead: {
        source: 'shopify',
        businessName: 'Allbirds',
        email: 'help@allbirds.com',
        phone: '+1 888-963-8944',
        address: '730 Montgomery St, San Francisco, CA, 94111, US',
        website: 'https://allbirds.com',
        reviewScore: null,
        categories: ['Apparel > Footwear', 'Apparel'],
        socialProfiles: {
          facebook: null,
          instagram: 'https://instagram.com/allbirds',
          linkedin: 'https://www.linkedin.com/company/allbirds',
        },
        store: {
          domain: 'allbirds.com',
          country: 'US',
          platform: 'shopify',
          categoryPath: '/Apparel',
          // decision 038: Store Leads' domain fields, from the fake's record
          merchantName: 'Allbirds',
          plan: 'Shopify Plus',
          city: 'San Francisco',
          region: 'CA',
          categoryPaths: ['/Apparel/Footwear', '/Apparel'],
          estimatedMonthlySales: 0,
          employeeCount: 2,
          productCount: 0,
          rank: 100000,
          technologies: ['Klaviyo', 'Google Analytics'],
          apps: ['Judge.me Product Reviews'],
          createdAt: '2015-01-15T00:00:00Z',
        },
        contacts: [
          {
            name: null,
            title: null,
            email: 'help@allbirds.com',
            phone: null,
            linkedinUrl: null,
            provenance: { email: contactPage, phone: null, linkedinUrl: null },
          },
          {
            name: null,
            title: null,
            email: null,
            phone: '+1 888-963-8944',
            linkedinUrl: null,
            provenance: { email: null, phone: home, linkedinUrl: null },
          },
        ],
        retrievedAt: expect.any(String),
        // each value's page as contact_info names it (`source`), else the store's home page
        provenance: {
          email: contactPage,
          phone: home,
          website: home,
          socialProfiles: { facebook: null, instagram: home, linkedin: home },
        },
      },
    });
    const query = stores.requests[0]!.query;
    expect(Object.fromEntries(query)).toMatchObject({
      'f:p': 'shopify',
      'f:cc': 'US',
      'f:cat': '/Apparel',
      'f:ds': 'Active',
      page: '0',
      page_size: '25',
    });
  });

  it('when the stores span several pages, then page and page_size page through them, one row per domain, each page handed over whole', async () => {
    stores.stores = [...makeStores(60), makeStores(1)[0]!]; // store0.com twice
    const pages = await collect(provider({ withPdl: false }), shopify({ maxResults: 30 }), context());
    const domains = leadsOf(pages).map((l) => l.store.domain);
    expect(domains).toHaveLength(60);
    expect(new Set(domains).size).toBe(60);
    expect(stores.requests.map((r) => [r.query.get('page'), r.query.get('page_size')])).toEqual([
      ['0', '30'],
      ['1', '30'],
      ['2', '30'],
    ]);
    // The worker finishes each store it still needs (decision 037): a page is handed over as Store Leads answered it.
    expect(pages.map((p) => p.leads.length)).toEqual([30, 30, 0]);
    expect(pages.map((p) => p.cursor && JSON.parse(p.cursor))).toEqual([
      { v: 1, page: 1, offset: 0, pageSize: 30 },
      { v: 1, page: 2, offset: 0, pageSize: 30 },
      null,
    ]);
  });

  it('when a replacement worker resumes from a cursor, then it continues after the committed page', async () => {
    stores.stores = makeStores(60);
    const req = shopify({ maxResults: 30 });
    const [first] = await collect(provider({ withPdl: false }), req, context(), 1);
    expect(JSON.parse(first!.cursor!)).toEqual({ v: 1, page: 1, offset: 0, pageSize: 30 });
    stores.requests.length = 0;
    const [second] = await collect(provider({ withPdl: false }), req, context({ cursor: first!.cursor }), 1);
    expect(second!.leads[0]!.dedupKey).toBe('store30.com');
    expect(stores.requests[0]!.query.get('page')).toBe('1');
  });

  it("when a previous release's cursor points inside a Store Leads page, then the resumed search continues there", async () => {
    const req = shopify({ maxResults: 30 });
    const cursor = JSON.stringify({ v: 1, page: 0, offset: 10, pageSize: 30 });
    const [resumed] = await collect(provider({ withPdl: false }), req, context({ cursor }), 1);
    expect(resumed!.leads.map((l) => l.dedupKey)).toEqual(Array.from({ length: 20 }, (_, i) => `store${10 + i}.com`));
    expect(stores.requests[0]!.query.get('page')).toBe('0');
  });

  it('when decisionMakerTitles are given, then one PDL call per page finds the people by company domain', async () => {
    stores.stores = makeStores(3, (i) => ({ contact_info: i === 0 ? [{ type: 'email', value: 'info@store0.com' }] : [] }));
    pdl.people = [
      ...makePeople(2, (i) => ({
        id: `a${i}`,
        job_company_website: 'store0.com',
        job_title: i === 0 ? 'founder' : 'warehouse clerk',
        linkedin_url: `linkedin.com/in/a${i}`,
      })),
      ...makePeople(1, () => ({
        id: 'b',
        job_company_website: 'Store2.com',
        job_title: 'head of ecommerce',
        linkedin_url: 'linkedin.com/in/b',
      })),
      ...makePeople(1, () => ({ id: 'c', job_company_website: 'elsewhere.com', job_title: 'founder', linkedin_url: 'linkedin.com/in/c' })),
    ];
    const leads = leadsOf(await collect(provider(), shopify({ decisionMakerTitles: ['Founder', 'Head of Ecommerce'] }), context()));
    expect(pdl.requests).toHaveLength(1);
    const byDomain = Object.fromEntries(leads.map((l) => [l.store.domain, l.contacts]));
    expect(byDomain['store0.com']).toEqual([
      expect.objectContaining({ name: null, title: null, email: 'info@store0.com', phone: null, linkedinUrl: null }),
      expect.objectContaining({ title: 'founder', linkedinUrl: 'https://www.linkedin.com/in/a0' }),
    ]);
    expect(byDomain['store1.com']).toEqual([]);
    expect(byDomain['store2.com']).toEqual([expect.objectContaining({ title: 'head of ecommerce', name: 'Person Number0' })]);
  });

  it('when shopify filters are asked for, then only stores that pass every one are delivered, the rest counted, and no PDL call is made for a filtered store', async () => {
    // makeStores: estimated_sales 1000*i, product_count 10*i, Klaviyo on even i, Judge.me on i % 3 == 0, created 20(15+i%10)-0(1+i%9)-15
    stores.stores = makeStores(30);
    const filters = {
      minEstimatedSales: 5_000,
      maxEstimatedSales: 25_000,
      technologies: ['klaviyo'],
      apps: ['Judge.me Product Reviews', 'Nothing Else'],
      createdAfter: '2018-01-01',
      minProductCount: 60,
    };
    const pages = await collect(provider(), shopify({ maxResults: 30, filters, decisionMakerTitles: ['Founder'] }), context());
    const leads = leadsOf(pages);
    // i in 6..25, even, divisible by 3 (6, 12, 18, 24), created 2018 or later (15+i%10 >= 18: i%10 >= 3): 6, 18, 24
    expect(leads.map((l) => l.store.domain).sort()).toEqual(['store18.com', 'store24.com', 'store6.com']);
    expect(pages.reduce((n, p) => n + (p.filtered ?? 0), 0)).toBe(27);
    expect(stores.requests[0]!.query.get('page_size')).toBe('50');
    // the people lookup asked only for the stores that passed
    const asked = JSON.stringify(pdl.requests.map((r) => r.body));
    expect(asked).toContain('store18.com');
    expect(asked).not.toContain('store1.com');
  });

  it('when PDL is not configured, then contacts come only from contact_info', async () => {
    stores.stores = makeStores(1, () => ({ contact_info: [{ type: 'phone', value: '+1 512 555 0100' }] }));
    const leads = leadsOf(await collect(provider({ withPdl: false }), shopify({ decisionMakerTitles: ['Founder'] }), context()));
    expect(leads[0]!.contacts).toEqual([
      {
        name: null,
        title: null,
        email: null,
        phone: '+1 512 555 0100',
        linkedinUrl: null,
        // no `source` in contact_info: the store's home page
        provenance: {
          email: null,
          phone: { origin: 'upstream', upstream: 'storeleads', sourceUrl: 'https://store0.com/', retrievedAt: expect.any(String) },
          linkedinUrl: null,
        },
      },
    ]);
    expect(pdl.requests).toHaveLength(0);
  });

  it('when the people lookup keeps failing, then the stores are still delivered with their own contact points', async () => {
    pdl.failAlways({ status: 503 });
    const leads = leadsOf(await collect(provider(), shopify({ decisionMakerTitles: ['Founder'], maxResults: 10 }), context(), 10));
    expect(leads).toHaveLength(10);
    expect(pdl.requests).toHaveLength(FAST_RETRY.maxAttempts);
  });

  it('when PDL refuses its key, then the job ends with provider_unauthorized', async () => {
    const error = await failure(provider({ pdlKey: 'wrong' }), shopify({ decisionMakerTitles: ['Founder'] }), context());
    expect(error).toMatchObject({ reason: 'provider_unauthorized', upstreamStatus: 401 });
  });

  it('when requiredChannels are given, then only stores with every channel remain, counted after enrichment', async () => {
    stores.stores = makeStores(4, (i) => ({
      contact_info: [
        ...(i === 0
          ? [
              { type: 'email', value: 'a@store0.com' },
              { type: 'phone', value: '+1 1' },
            ]
          : []),
        ...(i === 1 ? [{ type: 'phone', value: '+1 2' }] : []),
        ...(i === 2 ? [{ type: 'email', value: 'c@store2.com' }] : []),
      ],
    }));
    pdl.people = makePeople(1, () => ({
      job_company_website: 'store3.com',
      job_title: 'founder',
      phone_numbers: ['+1 3'],
      work_email: 'd@store3.com',
    }));
    const enricher = new StubEnricher({
      'https://store1.com': { emails: ['found@store1.com'], linkedin: 'https://www.linkedin.com/company/store1' },
    });
    const leads = leadsOf(
      await collect(provider({ enricher }), shopify({ requiredChannels: ['email', 'phone'], decisionMakerTitles: ['founder'] }), context()),
    );
    // the people lookup searches the slices that can add the missing channels
    expect(pdl.requests[0]!.body).toMatchObject({ dataset: 'email,phone' });
    expect(leads.map((l) => l.store.domain)).toEqual(['store0.com', 'store1.com', 'store3.com']);
    expect(leads[1]).toMatchObject({ email: 'found@store1.com', socialProfiles: { linkedin: 'https://www.linkedin.com/company/store1' } });
    expect(stores.requests[0]!.query.get('page_size')).toBe('50');

    const withLinkedin = leadsOf(
      await collect(provider({ enricher }), shopify({ requiredChannels: ['linkedin'], decisionMakerTitles: ['founder'] }), context()),
    );
    expect(withLinkedin.map((l) => l.store.domain)).toEqual(['store1.com', 'store3.com']);
  });

  it('when Store Leads has no store for the filters, then the search ends without a lead', async () => {
    const pages = await collect(provider(), shopify({ state: 'FR' }), context());
    expect(leadsOf(pages)).toEqual([]);
    expect(stores.requests).toHaveLength(1);
  });

  describe('as Store Leads documents it (UPSTREAM.md)', () => {
    it('when a free-text category is asked, then it is sent as the published Store Leads path it names, and each row says which path', async () => {
      stores.stores = [
        ...makeStores(2, (i) => ({ name: `lipstick${i}.com`, categories: ['/Beauty & Fitness/Face & Body Care/Make-Up & Cosmetics/'] })),
        ...makeStores(2, (i) => ({ name: `tees${i}.com`, categories: ['/Apparel/'] })),
      ];
      const leads = leadsOf(await collect(provider({ withPdl: false }), shopify({ category: 'Cosmetics' }), context()));
      expect(stores.requests[0]!.query.get('f:cat')).toBe('/Beauty & Fitness/Face & Body Care/Make-Up & Cosmetics');
      expect(stores.requests[0]!.query.get('q')).toBeNull();
      expect(leads.map((l) => [l.store.domain, l.store.categoryPath])).toEqual([
        ['lipstick0.com', '/Beauty & Fitness/Face & Body Care/Make-Up & Cosmetics'],
        ['lipstick1.com', '/Beauty & Fitness/Face & Body Care/Make-Up & Cosmetics'],
      ]);
    });

    it('when the category names no published path, then nothing is asked and the job fails: never a guessed path, never unfiltered', async () => {
      const error = await failure(provider({ withPdl: false }), shopify({ category: 'zorbing' }), context());
      expect(error).toMatchObject({ reason: 'provider_error' });
      expect((error as Error).message).toMatch(/names no Store Leads category \(nearest: \//);
      expect(stores.requests).toHaveLength(0);
    });

    it('when any category is asked, then every f:cat value is a shipped path or one of its accepted spellings', async () => {
      const spellings = new Set(STORELEADS_CATEGORY_PATHS.flatMap(categorySpellings));
      const categories = ['apparel', 'beauty', 'skincare', 'perfume', 'gym', 'protein powder', 'makeup brushes', 'home decor', 'toys'];
      for (const category of [...categories, 'dog food', 'Spielzeug', 'coffee and tea', 'pool and spa']) {
        stores.reset();
        await collect(provider({ withPdl: false }), shopify({ category }), context());
        const values = stores.requests[0]!.query.get('f:cat')!.split(',');
        for (const value of values) expect(spellings).toContain(value);
      }
    });

    it('when the category names several paths, then f:cat lists them comma-separated with f:cat:op=or, and each row names the path its store is under', async () => {
      stores.stores = [
        ...makeStores(1, () => ({ name: 'barkbox.example', categories: ['/Pets & Animals/Dogs/'] })),
        ...makeStores(1, () => ({ name: 'kibble.example', categories: ['/Pets & Animals/Pet Food & Supplies/'] })),
        ...makeStores(1, () => ({ name: 'meow.example', categories: ['/Pets & Animals/Cats/'] })),
        ...makeStores(1, () => ({ name: 'tees.example', categories: ['/Apparel/'] })),
      ];
      const leads = leadsOf(await collect(provider({ withPdl: false }), shopify({ category: 'dog food' }), context()));
      expect(stores.requests[0]!.query.get('f:cat')).toBe('/Pets & Animals/Dogs,/Pets & Animals/Pet Food & Supplies');
      expect(stores.requests[0]!.query.get('f:cat:op')).toBe('or');
      expect(leads.map((l) => [l.store.domain, l.store.categoryPath])).toEqual([
        ['barkbox.example', '/Pets & Animals/Dogs'],
        ['kibble.example', '/Pets & Animals/Pet Food & Supplies'],
      ]);
    });

    it("when a path's spelling is not confirmed, then both spellings are asked for and the row names the shipped path", async () => {
      stores.stores = [
        ...makeStores(1, () => ({ name: 'plush.example', categories: ['/Toys/Stuffed Toys/'] })),
        ...makeStores(1, () => ({ name: 'blocks.example', categories: ['/Toys & Hobbies/Building Toys/'] })),
        ...makeStores(1, () => ({ name: 'decor.example', categories: ['/Home & Garden/Home & Interior Decor/'] })),
      ];
      const leads = leadsOf(await collect(provider({ withPdl: false }), shopify({ category: 'toys' }), context()));
      expect(stores.requests[0]!.query.get('f:cat')).toBe('/Toys & Hobbies,/Toys');
      expect(stores.requests[0]!.query.get('f:cat:op')).toBe('or');
      expect(leads.map((l) => [l.store.domain, l.store.categoryPath])).toEqual([
        ['plush.example', '/Toys & Hobbies'],
        ['blocks.example', '/Toys & Hobbies'],
      ]);
    });

    it('when a category is asked in another language, then it is the same path: "Wohnaccessoires" is home decor', async () => {
      stores.stores = makeStores(2, (i) => ({
        name: `deko${i}.example`,
        country_code: 'DE',
        categories: ['/Home & Garden/Home & Interior Decor/'],
      }));
      const leads = leadsOf(await collect(provider({ withPdl: false }), shopify({ category: 'Wohnaccessoires', state: 'DE' }), context()));
      expect(stores.requests[0]!.query.get('f:cat')).toBe('/Home & Garden/Home & Interior Decor');
      expect(stores.requests[0]!.query.get('f:cat:op')).toBeNull();
      expect(leads.map((l) => l.store.categoryPath)).toEqual([
        '/Home & Garden/Home & Interior Decor',
        '/Home & Garden/Home & Interior Decor',
      ]);
    });

    it('when f:cat holds several values, then the fake combines them as f:cat:op says: all by default, or any, nand, nor', async () => {
      stores.stores = [
        ...makeStores(1, () => ({ name: 'both.example', categories: ['/Pets & Animals/Dogs/', '/Apparel/'] })),
        ...makeStores(1, () => ({ name: 'dogs.example', categories: ['/Pets & Animals/Dogs/'] })),
        ...makeStores(1, () => ({ name: 'none.example', categories: ['/Sports/'] })),
      ];
      const names = async (op: string | null) => {
        const query = new URLSearchParams({ 'f:cat': '/Pets & Animals/Dogs,/Apparel' });
        if (op !== null) query.set('f:cat:op', op);
        const response = await fetch(`${stores.url}/json/api/v1/all/domain?${query}`, { headers: { authorization: 'Bearer sl-key' } });
        if (response.status !== 200) return response.status;
        return ((await response.json()) as { domains: Array<{ name: string }> }).domains.map((d) => d.name);
      };
      expect(await names(null)).toEqual(['both.example']);
      expect(await names('and')).toEqual(['both.example']);
      expect(await names('or')).toEqual(['both.example', 'dogs.example']);
      expect(await names('nand')).toEqual(['dogs.example', 'none.example']);
      expect(await names('nor')).toEqual(['none.example']);
      expect(await names('xor')).toBe(400);
    });

    it('when an f:cat is no path Store Leads has, then the fake lists no store (the reading UPSTREAM.md gives, which the adapter never relies on)', async () => {
      const response = await fetch(
        `${stores.url}/json/api/v1/all/domain?f:cat=${encodeURIComponent('/Beauty & Fitness/Make-Up & Cosmetics')}`,
        { headers: { authorization: 'Bearer sl-key' } },
      );
      expect(await response.json()).toEqual({ domains: [] });
    });

    it('when stores are no longer live, then f:ds=Active leaves them out', async () => {
      stores.stores = makeStores(4, (i) => ({ domain_state: i % 2 === 0 ? 'Active' : 'Inactive' }));
      const leads = leadsOf(await collect(provider({ withPdl: false }), shopify(), context()));
      expect(stores.requests[0]!.query.get('f:ds')).toBe('Active');
      expect(leads.map((l) => l.store.domain)).toEqual(['store0.com', 'store2.com']);
    });

    it("when the home page's title is a slogan, then the business name is merchant_name, and the domain without one", async () => {
      stores.stores = makeStores(2, (i) => ({
        merchant_name: i === 0 ? 'Dune Apparel' : undefined,
        title: 'Dune Apparel | Free shipping over $75',
      }));
      const leads = leadsOf(await collect(provider({ withPdl: false }), shopify(), context()));
      expect(leads.map((l) => l.businessName)).toEqual(['Dune Apparel', 'store1.com']);
      expect(stores.requests[0]!.query.get('fields')).toContain('merchant_name');
      expect(stores.requests[0]!.query.get('fields')).not.toContain('title');
    });

    it('when a city is asked, then only stores in that city are delivered (Store Leads has no city filter to trust)', async () => {
      stores.stores = makeStores(4, (i) => ({ city: i % 2 === 0 ? 'Austin' : 'Dallas' }));
      const leads = leadsOf(await collect(provider({ withPdl: false }), shopify({ city: 'austin' }), context()));
      expect(leads.map((l) => l.store.domain)).toEqual(['store0.com', 'store2.com']);
      expect(stores.requests[0]!.query.get('page_size')).toBe('50');
    });

    it('when the key is refused, then the job ends provider_unauthorized, reading the error body', async () => {
      const client = new UpstreamClient({
        name: 'storeleads',
        baseUrl: stores.url,
        headers: { authorization: 'Bearer wrong' },
        retry: FAST_RETRY,
      });
      const error = await failure(createStoreLeadsProvider({ client, people: null, enrichment: null }), shopify(), context());
      expect(error).toMatchObject({ reason: 'provider_unauthorized', upstreamStatus: 401 });
      expect((error as Error).message).toContain('Invalid API key');
    });
  });
});

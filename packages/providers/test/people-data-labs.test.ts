import { UpstreamClient } from '../src/upstream';
import { createPeopleDataLabsProvider } from '../src/people-data-labs';
import { makePeople, type PdlFake, startPdlFake } from '@leadgen/testing';
import { collect, context, FAST_RETRY, request } from './support/provider-search';

let fake: PdlFake;

beforeAll(async () => {
  fake = await startPdlFake('good-key');
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.people = makePeople(40);
});

function provider() {
  const client = new UpstreamClient({
    name: 'people_data_labs',
    baseUrl: fake.url,
    headers: { 'x-api-key': 'good-key' },
    retry: FAST_RETRY,
  });
  return createPeopleDataLabsProvider({ client });
}

const linkedin = (overrides: Parameters<typeof request>[0] = {}) =>
  request({ source: 'linkedin', category: 'software', city: undefined, ...overrides });

describe('people_data_labs adapter', () => {
  it('when a person matches, then the record is mapped onto the lead with its person object', async () => {
    const fromPdl = {
      origin: 'upstream',
      upstream: 'people_data_labs',
      sourceUrl: 'https://www.linkedin.com/in/sean-thorne',
      retrievedAt: expect.any(String),
    };
    fake.people = makePeople(1, () => ({
      full_name: 'sean thorne',
      job_title: 'co-founder and chief executive officer',
      job_title_levels: ['owner', 'cxo'],
      linkedin_url: 'linkedin.com/in/Sean-Thorne/',
      location_name: 'san francisco, california, united states',
      job_company_name: 'people data labs',
      job_company_website: 'peopledatalabs.com',
      industry: 'computer software',
      work_email: 'sean@peopledatalabs.com',
      phone_numbers: ['+15555550100'],
      facebook_url: 'facebook.com/deseanthorne',
    }));
    const [page] = await collect(provider(), linkedin(), context());
    expect(page?.leads).toEqual([
      {
        dedupKey: 'https://www.linkedin.com/in/sean-thorne',
        lead: {
          source: 'linkedin',
          businessName: 'People Data Labs',
          email: 'sean@peopledatalabs.com',
          phone: '+15555550100',
          address: 'San Francisco, California, United States',
          website: 'https://peopledatalabs.com',
          reviewScore: null,
          categories: ['computer software'],
          socialProfiles: {
            facebook: 'https://facebook.com/deseanthorne',
            instagram: null,
            linkedin: 'https://www.linkedin.com/in/sean-thorne',
          },
          person: {
            fullName: 'Sean Thorne',
            title: 'co-founder and chief executive officer',
            seniority: 'owner',
            linkedinUrl: 'https://www.linkedin.com/in/sean-thorne',
            location: 'San Francisco, California, United States',
            // decision 038: PDL's documented person fields, from the fake's record
            workEmail: 'sean@peopledatalabs.com',
            emailType: 'professional',
            phoneNumbers: ['+15555550100'],
            locationParts: { locality: 'Austin', region: 'Texas', country: 'United States', postalCode: '78701' },
            jobStartDate: '2010-01',
            seniorityLevels: ['owner', 'cxo'],
            company: {
              name: 'People Data Labs',
              website: 'https://peopledatalabs.com',
              size: '51-200',
              industry: 'computer software',
              linkedinUrl: 'https://linkedin.com/company/company-0',
              location: 'Austin, Texas, United States',
            },
            skills: ['sales', 'saas', 'leadership'],
          },
          retrievedAt: expect.any(String),
          provenance: {
            email: fromPdl,
            phone: fromPdl,
            website: fromPdl,
            socialProfiles: { facebook: fromPdl, instagram: null, linkedin: fromPdl },
          },
        },
      },
    ]);
  });

  it('when requireEmail and requirePhone are asked for, then PDL is asked only for people with them, and a plan that withholds the value (true) is filtered and counted', async () => {
    fake.people = makePeople(12, (i) => ({
      work_email: i < 6 ? `p${i}@acme.example` : null,
      emails: [],
      phone_numbers: i % 2 === 0 ? (i === 4 ? true : [`+1512555${1000 + i}`]) : [],
    }));
    const pages = await collect(provider(), linkedin({ filters: { requireEmail: true, requirePhone: true } }), context());
    const leads = pages.flatMap((p) => p.leads);
    // people 0, 2 (email and phone), 4 has PDL's `true` for its phones: returned by PDL, filtered here
    expect(leads.map((l) => l.lead.email).sort()).toEqual(['p0@acme.example', 'p2@acme.example']);
    expect(pages.reduce((n, p) => n + (p.filtered ?? 0), 0)).toBe(1);
    expect(JSON.stringify((fake.requests[0]!.body as { query: unknown }).query)).toContain('"exists":{"field":"phone_numbers"}');
  });

  it('when linkedinParams are given, then they become the Elasticsearch query PDL evaluates', async () => {
    fake.people = [
      ...makePeople(3, (i) => ({
        id: `match-${i}`,
        linkedin_url: `linkedin.com/in/match-${i}`,
        job_title: 'vp of sales',
        job_title_levels: ['vp'],
        location_country: 'germany',
        job_company_size: '11-50',
        industry: 'retail',
      })),
      ...makePeople(3, (i) => ({
        id: `other-${i}`,
        linkedin_url: `linkedin.com/in/other-${i}`,
        job_title: 'vp of sales',
        job_title_levels: ['vp'],
        location_country: 'united states',
        industry: 'retail',
      })),
    ];
    const req = linkedin({
      state: 'US',
      linkedinParams: { title: ['VP of Sales'], seniority: ['vp', 'c_suite'], industry: ['Retail'], companySize: ['11-50'], country: 'DE' },
    });
    const pages = await collect(provider(), req, context());
    expect(
      pages
        .flatMap((p) => p.leads)
        .map((l) => l.dedupKey)
        .sort(),
    ).toEqual([0, 1, 2].map((i) => `https://www.linkedin.com/in/match-${i}`));
    const must = (fake.requests[0]!.body as { query: { bool: { must: unknown[] } } }).query.bool.must;
    expect(must).toEqual(
      expect.arrayContaining([
        { terms: { job_title_levels: ['vp', 'cxo'] } },
        { terms: { industry: ['retail'] } },
        { terms: { job_company_size: ['11-50'] } },
        { term: { location_country: 'germany' } },
        { bool: { should: [{ match_phrase: { job_title: 'vp of sales' } }], minimum_should_match: 1 } },
      ]),
    );
  });

  it('when no industry is given, then the category stands in for it and the state for the country', async () => {
    const pages = await collect(provider(), linkedin({ category: 'Computer Software', state: 'US' }), context(), 25);
    expect(pages[0]!.leads).toHaveLength(25);
    const must = JSON.stringify((fake.requests[0]!.body as { query: unknown }).query);
    expect(must).toContain('"location_country":"united states"');
    expect(must).toContain('{"term":{"industry":"computer software"}}');
  });

  it('when more people match than one page holds, then scroll_token pages follow with size capped at maxResults', async () => {
    const pages = await collect(provider(), linkedin({ maxResults: 15 }), context());
    const keys = pages.flatMap((p) => p.leads).map((l) => l.dedupKey);
    expect(keys).toHaveLength(40);
    expect(new Set(keys).size).toBe(40);
    const bodies = fake.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies.every((b) => b.size === 15)).toBe(true);
    expect(bodies[0]!.scroll_token).toBeUndefined();
    expect(bodies[1]!.scroll_token).toEqual(expect.any(String));
    expect(pages.at(-1)?.cursor).toBeNull();
  });

  it('when nothing matches, then the 404 ends the search without a lead or an error', async () => {
    const pages = await collect(provider(), linkedin({ category: 'underwater basket weaving' }), context());
    expect(pages.flatMap((p) => p.leads)).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('when a replacement worker resumes from a cursor, then the scroll continues where the committed page ended', async () => {
    const req = linkedin({ maxResults: 10 });
    const [first] = await collect(provider(), req, context(), 1);
    fake.reset();
    const [second] = await collect(provider(), req, context({ cursor: first!.cursor }), 1);
    expect((fake.requests[0]!.body as Record<string, unknown>).scroll_token).toEqual(expect.any(String));
    const before = new Set(first!.leads.map((l) => l.dedupKey));
    expect(second!.leads).toHaveLength(10);
    expect(second!.leads.some((l) => before.has(l.dedupKey))).toBe(false);
  });

  it('when the stored scroll token is refused, then the search restarts from the beginning', async () => {
    const cursor = JSON.stringify({ v: 1, scrollToken: 'expired-token' });
    const [page] = await collect(provider(), linkedin({ maxResults: 10 }), context({ cursor }), 1);
    expect(page!.leads).toHaveLength(10);
    expect(fake.requests).toHaveLength(2);
    expect((fake.requests[1]!.body as Record<string, unknown>).scroll_token).toBeUndefined();
  });

  it('when a record has no LinkedIn profile URL, then it is left out', async () => {
    fake.people = makePeople(3, (i) => ({ linkedin_url: i === 1 ? 'https://example.com/not-linkedin' : `linkedin.com/in/p${i}` }));
    const pages = await collect(provider(), linkedin(), context());
    expect(pages.flatMap((p) => p.leads).map((l) => l.dedupKey)).toEqual([
      'https://www.linkedin.com/in/p0',
      'https://www.linkedin.com/in/p2',
    ]);
  });

  describe('as PDL documents it (UPSTREAM.md)', () => {
    it('when the category is free text ("SaaS", "dentist"), then it is mapped to the canonical industry and finds people', async () => {
      fake.people = [
        ...makePeople(2, (i) => ({ linkedin_url: `linkedin.com/in/soft-${i}`, industry: 'computer software' })),
        ...makePeople(2, (i) => ({ linkedin_url: `linkedin.com/in/dent-${i}`, industry: 'medical practice' })),
      ];
      const software = await collect(provider(), linkedin({ category: 'SaaS' }), context());
      expect(software.flatMap((p) => p.leads).map((l) => l.dedupKey)).toEqual([
        'https://www.linkedin.com/in/soft-0',
        'https://www.linkedin.com/in/soft-1',
      ]);
      const dentists = await collect(provider(), linkedin({ category: 'Dentists' }), context());
      expect(dentists.flatMap((p) => p.leads)).toHaveLength(2);
      expect(JSON.stringify((fake.requests.at(-1)!.body as { query: unknown }).query)).toContain(
        '{"term":{"industry":"medical practice"}}',
      );
    });

    it('when linkedinParams.industry is free text, then each value is sent as its canonical industry', async () => {
      fake.people = makePeople(2, (i) => ({ linkedin_url: `linkedin.com/in/law-${i}`, industry: 'law practice' }));
      const pages = await collect(provider(), linkedin({ linkedinParams: { industry: ['Lawyers', 'Accountants'] } }), context());
      expect(pages.flatMap((p) => p.leads)).toHaveLength(2);
      expect(JSON.stringify((fake.requests[0]!.body as { query: unknown }).query)).toContain(
        '{"terms":{"industry":["law practice","accounting"]}}',
      );
    });

    it('when a keyword is given, then it narrows the search to people whose title, company, skills or summary say it', async () => {
      fake.people = makePeople(4, (i) => ({
        linkedin_url: `linkedin.com/in/k-${i}`,
        skills: i === 2 ? ['kubernetes', 'go'] : ['excel'],
        job_title: i === 3 ? 'kubernetes engineer' : 'manager',
      }));
      const pages = await collect(provider(), linkedin({ keyword: 'Kubernetes' }), context());
      expect(pages.flatMap((p) => p.leads).map((l) => l.dedupKey)).toEqual([
        'https://www.linkedin.com/in/k-2',
        'https://www.linkedin.com/in/k-3',
      ]);
    });

    it('when the keyword is part of a company name, then it does not match it: job_company_name and skills are keyword fields, queried with term on the whole value', async () => {
      fake.people = makePeople(4, (i) => ({
        linkedin_url: `linkedin.com/in/c-${i}`,
        job_company_name: i === 0 ? 'acme dental group' : i === 1 ? 'acme' : 'other co',
        skills: i === 2 ? ['acme'] : ['excel'],
        summary: i === 3 ? 'ten years selling acme dental chairs' : 'manager',
        job_title: 'manager',
      }));
      const keys = (await collect(provider(), linkedin({ keyword: 'Acme' }), context())).flatMap((p) => p.leads).map((l) => l.dedupKey);
      expect(keys).toEqual(['https://www.linkedin.com/in/c-1', 'https://www.linkedin.com/in/c-2', 'https://www.linkedin.com/in/c-3']);
      const query = JSON.stringify((fake.requests[0]!.body as { query: unknown }).query);
      expect(query).toContain('{"term":{"job_company_name":"acme"}}');
      expect(query).toContain('{"term":{"skills":"acme"}}');
      expect(query).not.toMatch(/match_phrase":\{"(job_company_name|skills|location_locality|industry)"/);
    });

    it('when a city is given, then location_locality (a keyword field) is matched as a whole value', async () => {
      fake.people = makePeople(3, (i) => ({ location_locality: ['austin', 'austin lakes', 'dallas'][i] }));
      const keys = (await collect(provider(), linkedin({ city: 'Austin' }), context())).flatMap((p) => p.leads).map((l) => l.dedupKey);
      expect(keys).toEqual(['https://www.linkedin.com/in/person-0']);
      expect(JSON.stringify((fake.requests[0]!.body as { query: unknown }).query)).toContain('{"term":{"location_locality":"austin"}}');
    });

    it("when people are searched, then the dataset is the resume slice (records with a LinkedIn profile, the lead's identity)", async () => {
      await collect(provider(), linkedin(), context());
      expect(fake.requests[0]!.body).toMatchObject({ dataset: 'resume' });
    });

    it("when PDL reports the minute's allowance spent, then the fleet is held until its reset", async () => {
      fake.perMinute = 1;
      const pauses: number[] = [];
      const limiter = { acquire: async () => undefined, pause: async (ms: number) => void pauses.push(ms) };
      const client = new UpstreamClient({
        name: 'people_data_labs',
        baseUrl: fake.url,
        headers: { 'x-api-key': 'good-key' },
        retry: FAST_RETRY,
        rateLimiter: limiter,
      });
      await collect(createPeopleDataLabsProvider({ client }), linkedin({ maxResults: 5 }), context(), 5);
      expect(fake.requests).toHaveLength(1);
      expect(pauses).toEqual([1_000]);
      fake.perMinute = 100;
    });

    it("when the account is out of credits (402 payment_required), then the job ends provider_error with PDL's words", async () => {
      fake.failNext({ status: 402 });
      const client = new UpstreamClient({
        name: 'people_data_labs',
        baseUrl: fake.url,
        headers: { 'x-api-key': 'good-key' },
        retry: FAST_RETRY,
      });
      let error: unknown;
      try {
        await collect(createPeopleDataLabsProvider({ client }), linkedin(), context());
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ reason: 'provider_error', upstreamStatus: 402 });
      expect((error as Error).message).toContain('payment_required');
    });
  });
});

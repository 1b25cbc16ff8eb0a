import { parse } from 'csv-parse/sync';
import { creditSummary } from '@leadgen/db';
import { metrics } from '@leadgen/ops';
import { DEFAULT_RETRY_POLICY } from '../../packages/providers/src/upstream';
import { html, notFound, startFakeSite, type FakeSite } from '@leadgen/testing';
import { components, type FakePlace, type GooglePlacesFake, makePlaces, startGooglePlacesFake } from '@leadgen/testing';
import { makePeople, type PdlFake, startPdlFake } from '@leadgen/testing';
import { type FakeStore, makeStores, type StoreLeadsFake, startStoreLeadsFake } from '@leadgen/testing';
import { generate, startWorld, type TestWorld } from '../harness';
import { startFakeDnsServer, type FakeDnsServer } from '@leadgen/testing';
import { buildAccount, type TestAccount } from '../factories';

/**
 * The whole path with the real adapters: API → queue → worker → real provider → a local fake of
 * the upstream (answering as the real API documents) → leads → billing. Each source gets a world
 * whose environment names the fake's base URL and key, exactly as an operator would configure it.
 */

// Long enough for the upstream client's own retries (DEFAULT_RETRY_POLICY) on a loaded machine.
const WAIT = { Prefer: 'wait=20' };
// PDL's default quota (10/min) grants a burst of 1: a second call in the same minute would wait ~6 s.
const PDL_RATE = '600';

/** POST generate and wait for the terminal 200; on any other answer the failure shows the body. */
async function generateTerminal(world: TestWorld, account: TestAccount, body: Record<string, unknown>) {
  const res = await generate(world, account, body, WAIT);
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 200, body: { terminal: expect.any(Object) } });
  return res.body;
}

/** leadgen_upstream_calls_per_job for google_places so far in this process: jobs observed and calls summed. */
async function upstreamCallsObserved(): Promise<{ count: number; sum: number }> {
  const { values } = await metrics.upstreamCallsPerJob.get();
  const of = (name: string) => values.find((v) => v.metricName === name && v.labels.upstream === 'google_places')?.value ?? 0;
  return { count: of('leadgen_upstream_calls_per_job_count'), sum: of('leadgen_upstream_calls_per_job_sum') };
}

async function ledgerOf(world: TestWorld, jobId: string): Promise<Array<[string, number]>> {
  const entries = await world.db.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
  return entries.map((e) => [e.kind, e.amount]);
}

async function expectNothingCharged(
  world: TestWorld,
  account: TestAccount,
  job: { jobId: string; creditsCharged: number },
  reserved: number,
  granted: number,
) {
  expect(job.creditsCharged).toBe(0);
  expect(await ledgerOf(world, job.jobId)).toEqual([
    ['reserve', reserved],
    ['release', reserved],
  ]);
  expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: granted, reserved: 0, available: granted });
}

// Every address the fixtures invent is on .example or .com: the loopback DNS server gives each an MX,
// so the workers' verification (DNS_SERVERS) reads accepts_mail, as for a live business.
let dns: FakeDnsServer;
const dnsEnv = () => ({ DNS_SERVERS: dns.server });
const ACCEPTS = expect.objectContaining({ status: 'accepts_mail' }) as unknown;
beforeAll(async () => {
  dns = await startFakeDnsServer({ mailDomainsUnder: ['example', 'com'] });
});
afterAll(() => dns?.close());

describe('google_maps through Google Places (New)', () => {
  const GOOGLE_KEY = 'google-e2e-key';
  let google: GooglePlacesFake;
  let site: FakeSite;
  let siteUrl: string;
  let world: TestWorld;

  const SMILE_HOME = `<html><body><h1>Smile Dental</h1>
    <a href="mailto:hello@smile-dental.example?subject=Appointment">Write to us</a>
    <a href="https://www.facebook.com/SmileDentalAustin">Facebook</a>
    <a href="https://www.instagram.com/smile.dental.austin/">Instagram</a>
    <a href="https://www.linkedin.com/company/smile-dental-austin/">LinkedIn</a>
  </body></html>`;

  beforeAll(async () => {
    [google, site] = await Promise.all([
      startGooglePlacesFake(GOOGLE_KEY),
      // The businesses' own websites, on loopback (ENRICHMENT_ALLOW_PRIVATE_NETWORKS=1 lets the enricher in).
      startFakeSite((request, response) => {
        if (request.url === '/') return html(response, SMILE_HOME);
        if (request.url === '/plain') return html(response, '<html><body><p>We fix teeth. Call us.</p></body></html>');
        if (request.url === '/closed') return html(response, '<a href="mailto:gone@closed.example">gone</a>');
        return notFound(response);
      }),
    ]);
    siteUrl = `http://127.0.0.1:${site.port}`;
    world = await startWorld({
      env: {
        ...dnsEnv(),
        WORKER_QUEUES: 'google_maps',
        GOOGLE_PLACES_API_KEY: GOOGLE_KEY,
        GOOGLE_PLACES_BASE_URL: google.url,
        ENRICHMENT_ALLOW_PRIVATE_NETWORKS: '1',
      },
    });
  });
  afterAll(async () => {
    await world?.close();
    await Promise.all([google?.close(), site?.close()]);
  });
  beforeEach(() => google.reset());

  /**
   * 12 places, 2 of them closed. Only local websites (a .example one would send the enricher to
   * DNS): the first has an email and profiles, the second nothing, a closed one has a website too.
   */
  function austinDentists(): FakePlace[] {
    return makePlaces(12, 'atx').map((place, i) => {
      const { websiteUri: _unused, ...rest } = place;
      if (i === 0) return { ...rest, displayName: { text: 'Smile Dental', languageCode: 'en' }, rating: 4.8, websiteUri: `${siteUrl}/` };
      if (i === 1) return { ...rest, displayName: { text: 'Plain Dental', languageCode: 'en' }, websiteUri: `${siteUrl}/plain` };
      if (i === 2)
        return {
          ...rest,
          displayName: { text: 'Closed For Good', languageCode: 'en' },
          businessStatus: 'CLOSED_PERMANENTLY',
          websiteUri: `${siteUrl}/closed`,
        };
      if (i === 3) return { ...rest, displayName: { text: 'Closed For Now', languageCode: 'en' }, businessStatus: 'CLOSED_TEMPORARILY' };
      if (i === 4) {
        const { internationalPhoneNumber: _none, ...national } = rest;
        return { ...national, displayName: { text: 'National Phone Dental', languageCode: 'en' } };
      }
      return rest;
    });
  }

  it('when Google has enough open places, then 200 COMPLETE from google_places with mapped, enriched leads, billed 2 per lead', async () => {
    google.places = austinDentists();
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, { category: 'dentist', state: 'US', city: 'Austin', maxResults: 10 });

    expect(job).toMatchObject({
      source: 'google_maps',
      provider: 'google_places',
      status: 'COMPLETE',
      progress: { requestedCount: 10, deliveredCount: 10 },
      creditsCharged: 20,
      terminal: { status: 'COMPLETE', requestedCount: 10, deliveredCount: 10, stopReason: null },
      // the two closed places: left out by the default filter, neither delivered nor billed (decision 038)
      skipped: { alreadyDelivered: 0, suppressed: 0, filtered: 2 },
      upstreamCalls: { google_places: 1 },
    });
    expect(job.leads).toHaveLength(10);
    const byName = new Map<string, Record<string, unknown>>(job.leads.map((lead: Record<string, unknown>) => [lead.businessName, lead]));
    expect(byName.size).toBe(10);
    expect(byName.has('Closed For Good')).toBe(false);
    expect(byName.has('Closed For Now')).toBe(false);

    expect(byName.get('Smile Dental')).toEqual({
      source: 'google_maps',
      businessName: 'Smile Dental',
      email: 'hello@smile-dental.example',
      emailVerification: ACCEPTS,
      phone: '+1 512-555-1000',
      address: '0 Main St, Austin, TX 78701, USA',
      website: `${siteUrl}/`,
      reviewScore: 4.8,
      categories: ['dentist', 'dental clinic', 'health'],
      socialProfiles: {
        facebook: 'https://www.facebook.com/SmileDentalAustin',
        instagram: 'https://www.instagram.com/smile.dental.austin',
        linkedin: 'https://www.linkedin.com/company/smile-dental-austin',
      },
      // where the website's values came from: the fake site is served from a loopback host, so the
      // address is not on the site's domain; its domain is named after the business (decision 040)
      enrichment: {
        emailSource: 'home page',
        emailBasis: 'business name domain',
        profileSources: { facebook: 'home page', instagram: 'home page', linkedin: 'home page' },
        pagesVisited: 1,
        websiteStatus: 'ok',
        sources: {
          email: { sourceUrl: `${siteUrl}/`, basis: 'business name domain' },
          facebook: { sourceUrl: `${siteUrl}/`, basis: 'linked from the site' },
          instagram: { sourceUrl: `${siteUrl}/`, basis: 'linked from the site' },
          linkedin: { sourceUrl: `${siteUrl}/`, basis: 'linked from the site' },
        },
      },
      place: expect.objectContaining({
        placeId: 'ChIJatx0000',
        location: { lat: 30.27, lng: -97.74 },
        internationalPhone: '+15125551000',
        businessStatus: 'OPERATIONAL',
        googleMapsUri: 'https://maps.google.com/?cid=1000000',
        openingHours: expect.objectContaining({ weekdayDescriptions: expect.arrayContaining(['Saturday: Closed']) }),
      }),
      retrievedAt: expect.any(String),
      // decision 038: each value says where it was read and when
      provenance: {
        // decision 038's entries filled from the crawler's attribution (enrichment.sources, decision 040)
        email: {
          origin: 'website',
          upstream: null,
          sourceUrl: `${siteUrl}/`,
          basis: 'business name domain',
          retrievedAt: expect.any(String),
        },
        phone: {
          origin: 'upstream',
          upstream: 'google_places',
          sourceUrl: 'https://maps.google.com/?cid=1000000',
          retrievedAt: expect.any(String),
        },
        website: {
          origin: 'upstream',
          upstream: 'google_places',
          sourceUrl: 'https://maps.google.com/?cid=1000000',
          retrievedAt: expect.any(String),
        },
        socialProfiles: {
          facebook: {
            origin: 'website',
            upstream: null,
            sourceUrl: `${siteUrl}/`,
            basis: 'linked from the site',
            retrievedAt: expect.any(String),
          },
          instagram: {
            origin: 'website',
            upstream: null,
            sourceUrl: `${siteUrl}/`,
            basis: 'linked from the site',
            retrievedAt: expect.any(String),
          },
          linkedin: {
            origin: 'website',
            upstream: null,
            sourceUrl: `${siteUrl}/`,
            basis: 'linked from the site',
            retrievedAt: expect.any(String),
          },
        },
      },
      // issue 38: what the person is told at the first contact, from the provenance above (no PUBLIC_BASE_URL here)
      notice: { sources: [`${siteUrl}/`, 'Google Places'], retrievedAt: expect.any(String), objectionUrl: null },
    });
    expect(byName.get('Plain Dental')).toMatchObject({
      email: null,
      website: `${siteUrl}/plain`,
      socialProfiles: { facebook: null, instagram: null, linkedin: null },
    });
    expect(byName.get('National Phone Dental')).toMatchObject({
      phone: '(512) 555-1004',
      website: null,
      address: '4 Main St, Austin, TX 78701, USA',
    });

    // One Text Search call (12 matches fit one page), as Google documents it.
    expect(google.requests).toHaveLength(1);
    const [call] = google.requests;
    expect(call!.headers['x-goog-api-key']).toBe(GOOGLE_KEY);
    expect(String(call!.headers['x-goog-fieldmask']).split(',')).toEqual(
      expect.arrayContaining(['places.websiteUri', 'places.businessStatus', 'nextPageToken']),
    );
    expect(call!.body).toMatchObject({ textQuery: 'dentist in Austin, United States', regionCode: 'US' });
    // The enricher visited the open businesses' websites, never the closed one's.
    expect(site.paths()).toEqual(expect.arrayContaining(['/robots.txt', '/', '/plain']));
    expect(site.paths()).not.toContain('/closed');

    expect(await ledgerOf(world, job.jobId)).toEqual([
      ['reserve', 20],
      ['release', 20],
      ['charge', 20],
    ]);
    expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: 980, reserved: 0, available: 980 });
  });

  it("when 100 dentists are asked for in a city with 150, then COMPLETE past Google's 60, only US places, no call that listed only places already seen, and the calls counted for the job", async () => {
    const abroad = makePlaces(3, 'mx').map((p) => ({
      ...p,
      formattedAddress: 'Av. Juárez 1, Cd Juárez, Chih., México',
      addressComponents: components('Ciudad Juárez', 'Chih.', 'MX', 'Mexico'),
    }));
    google.places = [...makePlaces(150, 'big'), ...abroad].map(({ websiteUri: _site, ...place }) => place);
    const callsBefore = await upstreamCallsObserved();
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, { category: 'dentist', state: 'US', city: 'Austin', maxResults: 100 });

    expect(job).toMatchObject({ status: 'COMPLETE', progress: { requestedCount: 100, deliveredCount: 100 }, creditsCharged: 200 });
    expect(job.leads.every((lead: { address: string }) => lead.address.endsWith('USA'))).toBe(true);
    const seen = new Set<string>();
    for (const answer of google.answers) {
      expect(answer.some((id) => !seen.has(id))).toBe(true);
      answer.forEach((id) => seen.add(id));
    }
    expect(google.requests.some((r) => (r.body as Record<string, unknown>).locationRestriction !== undefined)).toBe(true);
    // the job's run is observed once, with every request it sent
    const callsAfter = await upstreamCallsObserved();
    expect(callsAfter.count - callsBefore.count).toBe(1);
    expect(callsAfter.sum - callsBefore.sum).toBe(google.requests.length);
  });

  it('when filters leave most places out, then the job pages on to fill maxResults, counts them in skipped.filtered, bills only what it delivered, and shows the calls it paid for', async () => {
    // 150 places; review counts 0, 10, ..., 1490: at least 1200 leaves 30, and Google's minRating 4 (ratings 3.0..4.9) about half of those
    google.places = makePlaces(150, 'flt').map(({ websiteUri: _site, ...place }) => place);
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, {
      category: 'dentist',
      state: 'US',
      city: 'Austin',
      maxResults: 5,
      filters: { minRating: 4.2, minReviewCount: 1200 },
    });
    expect(google.requests[0]!.body).toMatchObject({ minRating: 4 });
    expect(job).toMatchObject({ status: 'COMPLETE', progress: { deliveredCount: 5 }, creditsCharged: 10 });
    for (const lead of job.leads as Array<{ reviewScore: number; place: { reviewCount: number } }>) {
      expect(lead.reviewScore).toBeGreaterThanOrEqual(4.2);
      expect(lead.place.reviewCount).toBeGreaterThanOrEqual(1200);
    }
    // every place Google listed was either delivered or filtered (none across a border, none repeated here)
    const listed = google.answers.flat().length;
    expect(google.requests.length).toBeGreaterThan(1);
    expect(job.skipped.filtered).toBeGreaterThan(0);
    expect(job.skipped.filtered + job.progress.deliveredCount).toBeLessThanOrEqual(listed);
    expect(job.upstreamCalls).toEqual({ google_places: google.requests.length });
    expect(await ledgerOf(world, job.jobId)).toEqual([
      ['reserve', 10],
      ['release', 10],
      ['charge', 10],
    ]);
  });

  it('when the filters leave fewer places than asked and Google has no more, then PARTIAL source_exhausted with the rest counted as filtered', async () => {
    google.places = makePlaces(8, 'few').map(({ websiteUri: _site, ...place }, i) => ({ ...place, userRatingCount: i < 3 ? 500 : 5 }));
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, {
      category: 'dentist',
      state: 'US',
      city: 'Austin',
      maxResults: 6,
      filters: { minReviewCount: 100 },
    });
    expect(job).toMatchObject({
      status: 'PARTIAL',
      terminal: { deliveredCount: 3, stopReason: 'source_exhausted' },
      skipped: { filtered: 5 },
      upstreamCalls: { google_places: 1 },
      creditsCharged: 10,
    });
  });

  it('when Google has fewer open places than asked, then PARTIAL source_exhausted, billed the 10-credit minimum', async () => {
    google.places = austinDentists().slice(2, 6); // two closed, two open
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, { category: 'dentist', state: 'US', city: 'Austin', maxResults: 8 });

    expect(job).toMatchObject({
      provider: 'google_places',
      status: 'PARTIAL',
      creditsCharged: 10,
      terminal: { status: 'PARTIAL', requestedCount: 8, deliveredCount: 2, stopReason: 'source_exhausted' },
    });
    expect(job.leads.map((l: { businessName: string }) => l.businessName).sort()).toEqual(['Business atx5', 'National Phone Dental']);
    expect(await ledgerOf(world, job.jobId)).toEqual([
      ['reserve', 16],
      ['release', 16],
      ['charge', 10],
    ]);
    expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: 990, reserved: 0, available: 990 });
  });

  it('when Google refuses the configured key (400 INVALID_ARGUMENT, reason API_KEY_INVALID), then FAILED provider_unauthorized after one call, nothing charged', async () => {
    google.places = austinDentists();
    const wrongKey = await startWorld({
      env: { WORKER_QUEUES: 'google_maps', GOOGLE_PLACES_API_KEY: 'revoked-key', GOOGLE_PLACES_BASE_URL: google.url },
    });
    try {
      const account = await buildAccount(wrongKey.db, { credits: 1_000 });
      const job = await generateTerminal(wrongKey, account, { category: 'dentist', state: 'US', city: 'Austin', maxResults: 10 });
      expect(job).toMatchObject({
        provider: 'google_places',
        status: 'FAILED',
        terminal: { status: 'FAILED', deliveredCount: 0, stopReason: 'provider_unauthorized' },
        leads: [],
      });
      // Refused credentials are not retried.
      expect(google.requests).toHaveLength(1);
      expect(google.requests[0]!.headers['x-goog-api-key']).toBe('revoked-key');
      await expectNothingCharged(wrongKey, account, job, 20, 1_000);
    } finally {
      await wrongKey.close();
    }
  });

  it('when Google answers 500 to every attempt, then FAILED provider_error once the client gives up, nothing charged', async () => {
    google.places = austinDentists();
    google.failAlways({ status: 500 });
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, { category: 'dentist', state: 'US', city: 'Austin', maxResults: 10 });

    expect(job).toMatchObject({
      provider: 'google_places',
      status: 'FAILED',
      terminal: { status: 'FAILED', deliveredCount: 0, stopReason: 'provider_error' },
      leads: [],
    });
    // The production retry policy (no environment knob): a few attempts with backoff, ~2-4 s in all.
    expect(google.requests).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
    // no page was committed: the run's calls reach the body before it settles (record_upstream_calls)
    expect(job.upstreamCalls).toEqual({ google_places: DEFAULT_RETRY_POLICY.maxAttempts });
    await expectNothingCharged(world, account, job, 20, 1_000);
    // The board's Logs show each retry; what the job cost upstream (every attempt is a request) is in its terminal object.
    const queue = world.api.deps.producer.queues().find((q) => q.name === 'google_maps')!;
    const { logs } = await queue.getJobLogs(job.jobId as string);
    expect(logs).toEqual([
      ...Array.from({ length: DEFAULT_RETRY_POLICY.maxAttempts - 1 }, (_, i) =>
        expect.stringMatching(new RegExp(`^upstream google_places: attempt ${i + 1} failed \\(5xx\\), retrying in \\d+ ms$`)),
      ),
    ]);
    expect(JSON.parse((await queue.getJob(job.jobId as string))!.failedReason.replace(/^FAILED provider_error: /, ''))).toMatchObject({
      upstreamCalls: { google_places: DEFAULT_RETRY_POLICY.maxAttempts },
    });
  });
});

describe('linkedin through People Data Labs', () => {
  const PDL_KEY = 'pdl-e2e-key';
  let pdl: PdlFake;
  let world: TestWorld;

  beforeAll(async () => {
    pdl = await startPdlFake(PDL_KEY);
    world = await startWorld({
      env: { ...dnsEnv(), WORKER_QUEUES: 'linkedin', PDL_API_KEY: PDL_KEY, PDL_BASE_URL: pdl.url, PDL_RATE_PER_MIN: PDL_RATE },
    });
  });
  afterAll(async () => {
    await world?.close();
    await pdl?.close();
  });
  beforeEach(() => {
    pdl.reset();
    // Even ones are CEOs (cxo), odd ones heads of marketing; number 6 is a CEO in Canada.
    pdl.people = makePeople(8, (i) => (i === 6 ? { location_country: 'canada', location_name: 'toronto, ontario, canada' } : {}));
  });

  const request = {
    source: 'linkedin',
    category: 'computer software',
    state: 'US',
    linkedinParams: { title: 'Chief Executive Officer', seniority: ['c_suite'], country: 'United States' },
  };

  it('when PDL finds people for the title, seniority and country, then 200 COMPLETE from people_data_labs with person records, 2 credits each, no minimum', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, { ...request, maxResults: 3 });

    expect(job).toMatchObject({
      source: 'linkedin',
      provider: 'people_data_labs',
      status: 'COMPLETE',
      request: { linkedinParams: { title: ['Chief Executive Officer'], seniority: ['c_suite'], country: 'US' } },
      creditsCharged: 6,
      terminal: { status: 'COMPLETE', requestedCount: 3, deliveredCount: 3, stopReason: null },
    });
    expect(job.leads.map((l: { person: { linkedinUrl: string } }) => l.person.linkedinUrl)).toEqual([
      'https://www.linkedin.com/in/person-0',
      'https://www.linkedin.com/in/person-2',
      'https://www.linkedin.com/in/person-4',
    ]);
    expect(job.leads[0]).toEqual({
      source: 'linkedin',
      businessName: 'Company 0',
      email: 'person0@company0.com',
      emailVerification: ACCEPTS,
      notice: { sources: ['People Data Labs'], retrievedAt: expect.any(String), objectionUrl: null },
      phone: '+15125551000',
      address: 'Austin, Texas, United States',
      website: 'https://company0.com',
      reviewScore: null,
      categories: ['computer software'],
      socialProfiles: { facebook: null, instagram: null, linkedin: 'https://www.linkedin.com/in/person-0' },
      person: expect.objectContaining({
        fullName: 'Person Number0',
        title: 'chief executive officer',
        seniority: 'c_suite',
        linkedinUrl: 'https://www.linkedin.com/in/person-0',
        location: 'Austin, Texas, United States',
        // decision 038
        workEmail: 'person0@company0.com',
        emailType: 'professional',
        company: expect.objectContaining({ name: 'Company 0', size: '51-200' }),
      }),
      retrievedAt: expect.any(String),
      provenance: expect.objectContaining({
        email: {
          origin: 'upstream',
          upstream: 'people_data_labs',
          sourceUrl: 'https://www.linkedin.com/in/person-0',
          retrievedAt: expect.any(String),
        },
      }),
    });

    // One Person Search call, never asking for more records than the job can deliver (PDL bills each).
    expect(pdl.requests).toHaveLength(1);
    expect(pdl.requests[0]!.headers['x-api-key']).toBe(PDL_KEY);
    expect(pdl.requests[0]!.body).toMatchObject({ size: 3 });

    expect(await ledgerOf(world, job.jobId)).toEqual([
      ['reserve', 6],
      ['release', 6],
      ['charge', 6],
    ]);
    expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: 994, reserved: 0, available: 994 });
  });

  it('when PDL has no match (404 not_found), then EMPTY no_results, nothing charged', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, {
      ...request,
      state: 'DE',
      linkedinParams: { ...request.linkedinParams, country: 'DE' },
      maxResults: 10,
    });

    expect(job).toMatchObject({
      provider: 'people_data_labs',
      status: 'EMPTY',
      terminal: { status: 'EMPTY', requestedCount: 10, deliveredCount: 0, stopReason: 'no_results' },
      leads: [],
    });
    expect(pdl.requests).toHaveLength(1);
    await expectNothingCharged(world, account, job, 20, 1_000);
  });

  it('when requireEmail leaves people out and PDL has no more, then the job pages on to PARTIAL source_exhausted, the rest counted as filtered, billed only what it delivered', async () => {
    // PDL sends `true` in place of a contact value on a plan without contact data (people-data-labs-mapping.ts,
    // emailOf): the field exists, so PDL's `exists` clause keeps the record, but the lead has no email.
    const withheld = new Set([1, 2, 3, 5]);
    pdl.people = makePeople(8, (i) => (withheld.has(i) ? { work_email: true, emails: true } : {}));
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, {
      source: 'linkedin',
      category: 'computer software',
      state: 'US',
      maxResults: 6,
      filters: { requireEmail: true },
    });

    expect(job).toMatchObject({
      provider: 'people_data_labs',
      status: 'PARTIAL',
      terminal: { status: 'PARTIAL', requestedCount: 6, deliveredCount: 4, stopReason: 'source_exhausted' },
      skipped: { filtered: 4 },
      creditsCharged: 8,
    });
    expect(job.leads.map((l: { person: { linkedinUrl: string } }) => l.person.linkedinUrl)).toEqual(
      [0, 4, 6, 7].map((i) => `https://www.linkedin.com/in/person-${i}`),
    );
    // Two pages of 6 (the second short: PDL has no more), each asking PDL for people with an address.
    expect(pdl.requests).toHaveLength(2);
    expect(JSON.stringify(pdl.requests[0]!.body)).toContain('{"exists":{"field":"work_email"}}');
    expect(pdl.requests[1]!.body).toMatchObject({ scroll_token: expect.any(String) });
    expect(job.upstreamCalls).toEqual({ people_data_labs: 2 });
    // Filtered people are neither written nor billed.
    expect(await world.db.lead.count({ where: { jobId: job.jobId } })).toBe(4);
    expect(await ledgerOf(world, job.jobId)).toEqual([
      ['reserve', 12],
      ['release', 12],
      ['charge', 8],
    ]);
  });
});

describe('shopify through Store Leads, with decision makers from People Data Labs', () => {
  const STORELEADS_KEY = 'storeleads-e2e-key';
  const PDL_KEY = 'pdl-e2e-key';
  let stores: StoreLeadsFake;
  let pdl: PdlFake;
  let world: TestWorld;

  beforeAll(async () => {
    [stores, pdl] = await Promise.all([startStoreLeadsFake(STORELEADS_KEY), startPdlFake(PDL_KEY)]);
    world = await startWorld({
      env: {
        ...dnsEnv(),
        WORKER_QUEUES: 'shopify',
        STORELEADS_API_KEY: STORELEADS_KEY,
        STORELEADS_BASE_URL: stores.url,
        PDL_API_KEY: PDL_KEY,
        PDL_BASE_URL: pdl.url,
        PDL_RATE_PER_MIN: PDL_RATE,
      },
    });
  });
  afterAll(async () => {
    await world?.close();
    await Promise.all([stores?.close(), pdl?.close()]);
  });
  beforeEach(() => {
    stores.reset();
    pdl.reset();
  });

  /**
   * A store with an email and all three profiles: the website enricher (which would look up
   * https://<domain> in DNS) has nothing to fill, so no test traffic leaves the machine.
   */
  function store(domain: string, phone: string | null, overrides: Partial<FakeStore> = {}): FakeStore {
    const slug = domain.split('.')[0]!.toLowerCase();
    return makeStores(1, () => ({
      name: domain,
      merchant_name: `${slug[0]!.toUpperCase()}${slug.slice(1)} Apparel`,
      title: `${slug[0]!.toUpperCase()}${slug.slice(1)} Apparel | Free shipping over $75`,
      contact_info: [
        { type: 'email', value: `hello@${domain.toLowerCase().replace(/^www\./, '')}` },
        ...(phone === null ? [] : [{ type: 'phone', value: phone }]),
        { type: 'facebook', value: `https://www.facebook.com/${slug}` },
        { type: 'instagram', value: `https://www.instagram.com/${slug}` },
        { type: 'linkedin', value: `https://www.linkedin.com/company/${slug}` },
      ],
      ...overrides,
    }))[0]!;
  }

  it('when the category names no Store Leads category, then 400 validation_failed naming the three nearest paths, before any job or call', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const res = await generate(world, account, { source: 'shopify', category: 'dentist', state: 'US', maxResults: 5 }, WAIT);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      errors: [
        { pointer: '#/category', detail: expect.stringContaining('nearest: /Health/Oral & Dental Care (Health > Oral & Dental Care); ') },
      ],
    });
    expect(res.body.errors[0].detail.match(/; \//g) ?? []).toHaveLength(2);
    expect(stores.requests).toHaveLength(0);
    expect(await world.db.job.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it('when Store Leads lists a store twice, then 200 COMPLETE from storeleads with one row per store domain, decision makers only, 26 credits per row', async () => {
    stores.stores = [
      store('shop0.example', '+1 512-555-0100'),
      store('shop1.example', null),
      store('shop2.example', null),
      store('WWW.Shop1.example', '+1 512-555-0111'), // the same store again
      store('shop3.example', null),
      store('maple.example', null, { country_code: 'CA' }),
      store('woo.example', null, { platform: 'woocommerce' }),
      store('shop4.example', null),
      store('shop5.example', null),
    ];
    pdl.people = makePeople(
      4,
      (i) =>
        [
          {
            job_company_website: 'shop0.example',
            job_title: 'founder',
            linkedin_url: 'linkedin.com/in/shop0-founder',
            work_email: 'ceo@shop0.example',
          },
          { job_company_website: 'shop0.example', job_title: 'warehouse clerk', linkedin_url: 'linkedin.com/in/shop0-clerk' },
          {
            job_company_website: 'Shop2.example',
            job_title: 'head of ecommerce',
            linkedin_url: 'linkedin.com/in/shop2-head',
            work_email: null,
          },
          { job_company_website: 'elsewhere.example', job_title: 'founder', linkedin_url: 'linkedin.com/in/elsewhere-founder' },
        ][i]!,
    );
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, {
      source: 'shopify',
      category: 'apparel',
      state: 'US',
      maxResults: 6,
      decisionMakerTitles: ['Founder', 'Head of Ecommerce'],
    });

    expect(job).toMatchObject({
      source: 'shopify',
      provider: 'storeleads',
      status: 'COMPLETE',
      creditsCharged: 156,
      terminal: { status: 'COMPLETE', requestedCount: 6, deliveredCount: 6, stopReason: null },
    });
    const domains = job.leads.map((l: { store: { domain: string } }) => l.store.domain);
    expect(domains).toEqual(['shop0.example', 'shop1.example', 'shop2.example', 'shop3.example', 'shop4.example', 'shop5.example']);

    expect(job.leads[0]).toEqual({
      source: 'shopify',
      businessName: 'Shop0 Apparel',
      email: 'hello@shop0.example',
      emailVerification: ACCEPTS,
      notice: { sources: ['Store Leads', 'People Data Labs'], retrievedAt: expect.any(String), objectionUrl: null },
      phone: '+1 512-555-0100',
      address: 'Austin, TX, US',
      website: 'https://shop0.example',
      reviewScore: null,
      categories: ['Apparel > Footwear'],
      socialProfiles: {
        facebook: 'https://www.facebook.com/shop0',
        instagram: 'https://www.instagram.com/shop0',
        linkedin: 'https://www.linkedin.com/company/shop0',
      },
      store: expect.objectContaining({
        domain: 'shop0.example',
        country: 'US',
        platform: 'shopify',
        categoryPath: '/Apparel',
        estimatedMonthlySales: 0,
        plan: 'Shopify Plus',
      }),
      contacts: [
        expect.objectContaining({
          name: null,
          title: null,
          email: 'hello@shop0.example',
          emailVerification: ACCEPTS,
          phone: null,
          linkedinUrl: null,
        }),
        expect.objectContaining({
          name: null,
          title: null,
          email: null,
          emailVerification: null,
          phone: '+1 512-555-0100',
          linkedinUrl: null,
        }),
        expect.objectContaining({
          name: 'Person Number0',
          title: 'founder',
          email: 'ceo@shop0.example',
          emailVerification: ACCEPTS,
          phone: '+15125551000',
          linkedinUrl: 'https://www.linkedin.com/in/shop0-founder',
          provenance: expect.objectContaining({ email: expect.objectContaining({ upstream: 'people_data_labs' }) }),
        }),
      ],
      retrievedAt: expect.any(String),
      provenance: expect.objectContaining({ email: expect.objectContaining({ origin: 'upstream', upstream: 'storeleads' }) }),
    });
    // The first listing of a store is the row: the duplicate's phone does not reach it.
    expect(job.leads[1]).toMatchObject({ phone: null, store: { domain: 'shop1.example' } });
    expect(job.leads[2].contacts).toEqual([
      expect.objectContaining({
        name: null,
        title: null,
        email: 'hello@shop2.example',
        emailVerification: ACCEPTS,
        phone: null,
        linkedinUrl: null,
      }),
      expect.objectContaining({
        name: 'Person Number2',
        title: 'head of ecommerce',
        linkedinUrl: 'https://www.linkedin.com/in/shop2-head',
      }),
    ]);
    const everyContact = job.leads.flatMap((l: { contacts: Array<{ title: string | null }> }) => l.contacts);
    expect(everyContact.map((c: { title: string | null }) => c.title)).not.toContain('warehouse clerk');

    // Store Leads filtered by platform, country and category; one PDL call for the whole page.
    expect(stores.requests).toHaveLength(1);
    expect(stores.requests[0]!.headers.authorization).toBe(`Bearer ${STORELEADS_KEY}`);
    expect(Object.fromEntries(stores.requests[0]!.query)).toMatchObject({
      'f:p': 'shopify',
      'f:cc': 'US',
      'f:cat': '/Apparel',
      'f:ds': 'Active',
      page: '0',
      page_size: '10',
    });
    expect(pdl.requests).toHaveLength(1);
    expect(pdl.requests[0]!.headers['x-api-key']).toBe(PDL_KEY);

    expect(await ledgerOf(world, job.jobId)).toEqual([
      ['reserve', 156],
      ['release', 156],
      ['charge', 156],
    ]);
    // The path the job ran with is in the CSV too, one cell per lead.
    const csv = await world.http
      .get(`/api/v1/leads/jobs/${job.jobId}/leads.csv`)
      .set(account.auth)
      .buffer(true)
      .parse((r, cb) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c.toString()));
        r.on('end', () => cb(null, body));
      });
    const rows = parse(csv.body as string, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0]!)).toContain('store.categoryPath');
    expect(Object.keys(rows[0]!).slice(-4)).toEqual(['provenance', 'notice.sources', 'notice.retrievedAt', 'notice.objectionUrl']);
    expect(rows.map((r) => r['store.categoryPath'])).toEqual(Array(6).fill('/Apparel'));
    expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: 844, reserved: 0, available: 844 });
  });

  it('when requiredChannels are email and phone, then only stores reachable both ways (themselves or via a decision maker) are delivered and billed', async () => {
    stores.stores = [
      store('direct.example', '+1 512-555-0200'), // its own phone
      store('viafounder.example', null), // the founder's phone
      store('viaclerk.example', null), // only a clerk has a phone: not a decision maker
      store('silent.example', null), // no phone anywhere
    ];
    pdl.people = makePeople(
      2,
      (i) =>
        [
          {
            job_company_website: 'viafounder.example',
            job_title: 'founder',
            linkedin_url: 'linkedin.com/in/viafounder',
            phone_numbers: ['+1 512 555 0300'],
          },
          {
            job_company_website: 'viaclerk.example',
            job_title: 'clerk',
            linkedin_url: 'linkedin.com/in/viaclerk',
            phone_numbers: ['+1 512 555 0400'],
          },
        ][i]!,
    );
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, {
      source: 'shopify',
      category: 'apparel',
      state: 'US',
      maxResults: 4,
      decisionMakerTitles: ['Founder'],
      requiredChannels: ['email', 'phone'],
    });

    expect(job).toMatchObject({
      provider: 'storeleads',
      status: 'PARTIAL',
      creditsCharged: 52,
      terminal: { status: 'PARTIAL', requestedCount: 4, deliveredCount: 2, stopReason: 'source_exhausted' },
    });
    expect(job.leads.map((l: { store: { domain: string } }) => l.store.domain)).toEqual(['direct.example', 'viafounder.example']);
    expect(job.leads[1].contacts).toContainEqual(expect.objectContaining({ title: 'founder', phone: '+1 512 555 0300' }));
    // With requiredChannels stores get dropped, so the adapter reads full pages.
    expect(stores.requests[0]!.query.get('page_size')).toBe('50');

    expect(await ledgerOf(world, job.jobId)).toEqual([
      ['reserve', 104],
      ['release', 104],
      ['charge', 52],
    ]);
    expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: 948, reserved: 0, available: 948 });
  });

  it('when filters leave most stores out and Store Leads has no more, then the job pages on to PARTIAL source_exhausted, the rest counted as filtered, billed only what it delivered', async () => {
    // 60 stores, one in six with 500 products: 9 pass on the first page of 50, 1 on the short second one.
    stores.stores = Array.from({ length: 60 }, (_, i) => store(`shop${i}.example`, null, { product_count: i % 6 === 0 ? 500 : 5 }));
    const account = await buildAccount(world.db, { credits: 1_000 });
    const job = await generateTerminal(world, account, {
      source: 'shopify',
      category: 'apparel',
      state: 'US',
      maxResults: 12,
      filters: { minProductCount: 100 },
    });

    expect(job).toMatchObject({
      provider: 'storeleads',
      status: 'PARTIAL',
      terminal: { status: 'PARTIAL', requestedCount: 12, deliveredCount: 10, stopReason: 'source_exhausted' },
      skipped: { filtered: 50 },
      creditsCharged: 260,
    });
    expect(job.leads.map((l: { store: { domain: string } }) => l.store.domain)).toEqual(
      Array.from({ length: 10 }, (_, k) => `shop${k * 6}.example`),
    );
    // No documented Store Leads filter for product counts: full pages, filtered in the worker.
    expect(stores.requests.map((r) => [r.query.get('page'), r.query.get('page_size')])).toEqual([
      ['0', '50'],
      ['1', '50'],
    ]);
    expect(job.upstreamCalls).toEqual({ storeleads: 2 });
    expect(await world.db.lead.count({ where: { jobId: job.jobId } })).toBe(10);
    expect(await ledgerOf(world, job.jobId)).toEqual([
      ['reserve', 312],
      ['release', 312],
      ['charge', 260],
    ]);
  });
});

import { areaContains, checkArea, type ResolvedArea } from '@leadgen/domain';
import {
  components,
  type FakePlace,
  type GooglePlacesFake,
  startFakeDnsServer,
  startGooglePlacesFake,
  type FakeDnsServer,
} from '@leadgen/testing';
import { idempotencyKey, startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';

/**
 * Area searches end to end (issue 35, decision 039): API → quote → batch of tiles → worker → the Google fake
 * (locationRestriction rectangles, 60 per query over pages of 20, places with coordinates) → leads clipped to
 * a polygon, each delivered once.
 */

// A city whose north-east corner is cut away: its bounding box holds many places outside it.
const CITY = {
  type: 'Polygon',
  coordinates: [
    [
      [-87.75, 41.8],
      [-87.6, 41.8],
      [-87.6, 41.88],
      [-87.66, 41.95],
      [-87.75, 41.95],
      [-87.75, 41.8],
    ],
  ],
};

/** A deterministic spread of dentists over a box around the city, and a dense downtown where tiles saturate twice. */
function fakeCity(): FakePlace[] {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const place = (i: number, latitude: number, longitude: number): FakePlace => ({
    id: `ChIJcity${String(i).padStart(5, '0')}`,
    displayName: { text: `Dentist ${i}`, languageCode: 'en' },
    formattedAddress: `${i} State St, Chicago, IL, USA`,
    addressComponents: components('Chicago', 'IL', 'US', 'United States'),
    location: { latitude, longitude },
    internationalPhoneNumber: `+1 312-555-${String(1000 + (i % 9000))}`,
    rating: 4.1,
    types: ['dentist', 'health', 'point_of_interest', 'establishment'],
    businessStatus: 'OPERATIONAL',
  });
  const spread = Array.from({ length: 1_000 }, (_, i) => place(i, 41.78 + random() * 0.19, -87.77 + random() * 0.19));
  const downtown = Array.from({ length: 200 }, (_, i) => place(1_000 + i, 41.83 + random() * 0.012, -87.7 + random() * 0.012));
  return [...spread, ...downtown];
}

const REQUEST = { category: 'dentist', state: 'US' };
const isLeadCall = (mask: unknown) => typeof mask === 'string' && mask.includes('places.internationalPhoneNumber');

let dns: FakeDnsServer;
let google: GooglePlacesFake;
let world: TestWorld;
let account: TestAccount;
let area: ResolvedArea;
let inside: Set<string>;
let outside: Set<string>;

beforeAll(async () => {
  dns = await startFakeDnsServer({ mailDomainsUnder: ['example', 'com'] });
  google = await startGooglePlacesFake('area-key');
  world = await startWorld({
    env: {
      DNS_SERVERS: dns.server,
      WORKER_QUEUES: 'google_maps',
      WORKER_CONCURRENCY: '4',
      GOOGLE_PLACES_API_KEY: 'area-key',
      GOOGLE_PLACES_BASE_URL: google.url,
      GOOGLE_PLACES_RATE_PER_MIN: '100000',
    },
  });
  area = checkArea(CITY).area!;
});
afterAll(async () => {
  await world?.close();
  await Promise.all([google?.close(), dns?.close()]);
});
beforeEach(async () => {
  google.reset();
  google.places = fakeCity();
  inside = new Set(google.places.filter((p) => areaContains(area, p.location!)).map((p) => p.displayName!.text));
  outside = new Set(google.places.filter((p) => !inside.has(p.displayName!.text)).map((p) => p.displayName!.text));
  account = await buildAccount(world.db, { credits: 100_000 });
});

async function pollBatch(batchId: string, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth);
    expect(res.status).toBe(200);
    if (res.body.terminal) return res.body;
    if (Date.now() > until) throw new Error(`batch not terminal: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function batchLeadNames(batchId: string): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: { items: unknown[]; nextCursor: string | null } } = await world.http
      .get(`/api/v1/leads/batches/${batchId}/leads?limit=1000${cursor ? `&cursor=${cursor}` : ''}`)
      .set(account.auth);
    expect(res.status).toBe(200);
    names.push(...(res.body.items as unknown as Array<{ lead: { businessName: string } }>).map((item) => item.lead.businessName));
    cursor = res.body.nextCursor;
  } while (cursor);
  return names;
}

function startBatch(body: object) {
  return world.http.post('/api/v1/leads/batches').set(account.auth).set('Idempotency-Key', idempotencyKey()).send(body);
}

describe('area searches through Google Places (New)', () => {
  it('when a city polygon is quoted and the quote is run, then every place inside is delivered once, none outside, the quote counts them exactly and paid calls stay within 1.5× the floor', async () => {
    expect(inside.size).toBeGreaterThan(400);
    const quoted = await world.http.post('/api/v1/leads/quotes').set(account.auth).send({ area: CITY, request: REQUEST });
    expect(quoted.status).toBe(201);
    const quote = quoted.body;
    expect(quote).toMatchObject({ provider: 'google_places', places: inside.size, area: { kind: 'polygon' } });
    // The quote listed with the cheap masks only: no call at the lead's (Enterprise) mask.
    expect(google.requests.filter((r) => isLeadCall(r.headers['x-goog-fieldmask']))).toHaveLength(0);
    const masks = new Set(google.requests.map((r) => r.headers['x-goog-fieldmask']));
    expect([...masks].sort()).toEqual(['places.id,nextPageToken', 'places.id,places.location,nextPageToken']);
    expect(quote.upstreamCalls.idsOnly + quote.upstreamCalls.withLocation).toBe(google.requests.length);
    const balanceBefore = (
      await world.db.sql.query<{ n: number }>('SELECT balance::int AS n FROM account_credits($1)', [account.accountId])
    ).rows[0]!.n;
    expect(balanceBefore).toBe(100_000); // a quote costs the account nothing

    google.reset();
    google.places = fakeCity();
    const created = await startBatch({ quoteId: quote.quoteId, maxCredits: 50_000 });
    expect(created.status).toBe(202);
    expect(created.body.areaSearch).toMatchObject({ quoteId: quote.quoteId, area: { kind: 'polygon' } });
    const done = await pollBatch(created.body.batchId);
    const names = await batchLeadNames(created.body.batchId);
    expect(names.length).toBe(new Set(names).size); // none twice
    expect(names.filter((n) => outside.has(n))).toEqual([]); // none outside
    expect(new Set(names)).toEqual(inside); // every one inside
    expect(done.deliveredCount).toBe(quote.places);
    expect(done.creditsCharged).toBe(quote.credits);
    const paid = google.requests.filter((r) => isLeadCall(r.headers['x-goog-fieldmask'])).length;
    expect(paid).toBe(quote.paidCalls);
    const floor = Math.ceil(inside.size / 20);
    expect(paid).toBeLessThanOrEqual(1.5 * floor);
  });

  it('when an area batch runs without a quote, then saturated tiles split into quarters as children, every place inside is delivered once and places outside are counted, not delivered', async () => {
    const created = await startBatch({ area: CITY, request: REQUEST, maxCredits: 50_000, name: 'Chicago dentists' });
    expect(created.status).toBe(202);
    const first = created.body.childCount as number;
    const done = await pollBatch(created.body.batchId);
    const names = await batchLeadNames(created.body.batchId);
    expect(names.length).toBe(new Set(names).size);
    expect(new Set(names)).toEqual(inside);
    expect(done.childCount).toBeGreaterThan(first); // children were added as tiles split
    const { tiles, skipped } = done.areaSearch;
    expect(tiles.split).toBeGreaterThan(0);
    expect(tiles.total).toBe(done.childCount);
    expect(tiles.searching + tiles.notSearched).toBe(0);
    expect(tiles.done + tiles.split + tiles.saturatedAtMinimum).toBe(tiles.total);
    expect(skipped.outsideArea).toBeGreaterThan(0);
    // each Google request restricted to a rectangle, never biased
    for (const r of google.requests) expect((r.body as { locationRestriction?: unknown }).locationRestriction).toBeDefined();
    const paid = google.requests.length;
    // Without a quote, saturated tiles are searched before their quarters: the price of coverage (decision 039).
    expect(paid).toBeLessThanOrEqual(2 * Math.ceil(inside.size / 20));
  });

  it("when an area search has filters, then Google gets minRating with every tile's query, the review-count filter runs on each lead, and only places inside that pass both are delivered and billed", async () => {
    // Half the places rated 4.6 (the rest 3.2), and one in three of those with 5 reviews (the rest 100).
    google.places = fakeCity().map((place, i) => ({ ...place, rating: i % 2 === 0 ? 4.6 : 3.2, userRatingCount: i % 3 === 0 ? 5 : 100 }));
    const passing = (p: FakePlace) => p.rating === 4.6 && p.userRatingCount === 100;
    const wanted = new Set(google.places.filter((p) => inside.has(p.displayName!.text) && passing(p)).map((p) => p.displayName!.text));
    const filteredInside = google.places.filter((p) => inside.has(p.displayName!.text) && p.rating === 4.6 && !passing(p)).length;
    expect(wanted.size).toBeGreaterThan(100);

    const created = await startBatch({
      area: CITY,
      request: { ...REQUEST, filters: { minRating: 4.5, minReviewCount: 50 } },
      maxCredits: 50_000,
    });
    expect(created.status).toBe(202);
    const done = await pollBatch(created.body.batchId);
    const names = await batchLeadNames(created.body.batchId);
    expect(names.length).toBe(new Set(names).size);
    expect(new Set(names)).toEqual(wanted);
    // Google filtered on the rating (sent with every tile's query, in its 0.5 steps): no 3.2 place was listed.
    const leadCalls = google.requests.filter((r) => isLeadCall(r.headers['x-goog-fieldmask']));
    expect(leadCalls.length).toBeGreaterThan(0);
    for (const call of leadCalls)
      expect(call.body).toMatchObject({ minRating: 4.5, locationRestriction: { rectangle: expect.any(Object) } });
    // The review-count filter ran in the worker: each such place inside was listed by some tile and counted there.
    const children = await world.db.job.findMany({ where: { batchId: created.body.batchId } });
    const filtered = children.reduce((sum, c) => sum + c.skippedFiltered, 0);
    expect(filtered).toBeGreaterThanOrEqual(filteredInside);
    // Only what was delivered is billed: 2 credits a place, no minimum per tile.
    expect(done).toMatchObject({ deliveredCount: wanted.size, creditsCharged: 2 * wanted.size });
  });

  it('when an area is given by a place name, then the source resolves it to its viewport and the batch searches that rectangle', async () => {
    google.localities = [
      {
        id: 'ChIJchicago',
        displayName: { text: 'Chicago, US', languageCode: 'en' },
        viewport: { low: { latitude: 41.84, longitude: -87.72 }, high: { latitude: 41.86, longitude: -87.7 } },
        location: { latitude: 41.85, longitude: -87.71 },
      },
    ];
    const quoted = await world.http
      .post('/api/v1/leads/quotes')
      .set(account.auth)
      .send({ area: { place: 'Chicago, US' }, request: REQUEST });
    expect(quoted.status).toBe(201);
    const within = google.places.filter(
      (p) =>
        p.location!.latitude >= 41.84 && p.location!.latitude <= 41.86 && p.location!.longitude >= -87.72 && p.location!.longitude <= -87.7,
    );
    expect(quoted.body).toMatchObject({
      places: within.length,
      area: { kind: 'place', bounds: { south: 41.84, west: -87.72, north: 41.86, east: -87.7 } },
    });
    expect(quoted.body.upstreamCalls.placeResolution).toBe(1);
    const unknown = await world.http
      .post('/api/v1/leads/quotes')
      .set(account.auth)
      .send({ area: { place: 'Atlantis, US' }, request: REQUEST });
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('area_place_not_found');
  });
});

describe('area search input', () => {
  it('when an area or its request is malformed, then one 400 lists every problem with its pointer', async () => {
    const res = await world.http
      .post('/api/v1/leads/quotes')
      .set(account.auth)
      .send({
        area: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 1],
            ],
          ],
        },
        request: { category: 'dentist', state: 'US', city: 'Chicago', maxResults: 10 },
      });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      '#/area/coordinates/0',
      '#/request/city',
      '#/request/maxResults',
    ]);
    const both = await startBatch({ quoteId: 'quo_0123456789abcdefghijklmn', area: CITY, request: REQUEST });
    expect(both.status).toBe(400);
    const missing = await startBatch({ quoteId: 'quo_0123456789abcdefghijklmn' });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('quote_not_found');
    const linkedin = await startBatch({ area: CITY, request: { category: 'cto', state: 'US', source: 'linkedin' } });
    expect(linkedin.status).toBe(400);
    expect(linkedin.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/request/source']);
  });
});

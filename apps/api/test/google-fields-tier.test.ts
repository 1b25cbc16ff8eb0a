import { startGooglePlacesFake, type GooglePlacesFake } from '@leadgen/testing';
import { generate, idempotencyKey, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

// GOOGLE_PLACES_FIELDS=pro asks Google for no Enterprise-tier field (packages/providers/src/google-places/UPSTREAM.md,
// "SKU per field"), so a filter on one would leave out every place: refused before any job or call (decision 038).
const KEY = 'google-tier-key';
const AREA = { bbox: { south: 41.8, west: -87.76, north: 41.86, east: -87.7 } };

describe('filters on Enterprise-tier fields under GOOGLE_PLACES_FIELDS=pro', () => {
  let google: GooglePlacesFake;
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    google = await startGooglePlacesFake(KEY);
    world = await startWorld({
      worker: false,
      env: { GOOGLE_PLACES_API_KEY: KEY, GOOGLE_PLACES_BASE_URL: google.url, GOOGLE_PLACES_FIELDS: 'pro' },
    });
    account = await buildAccount(world.db, { credits: 1_000 });
  });
  afterAll(async () => {
    await world?.close();
    await google?.close();
  });

  const ENTERPRISE = {
    minRating: 4,
    minReviewCount: 10,
    priceLevels: ['moderate'],
    requireWebsite: true,
    requirePhone: true,
    requireEmail: true,
  };
  const pointers = (body: { errors: Array<{ pointer: string }> }) => body.errors.map((e) => e.pointer).sort();

  it('when a generate filters on Enterprise fields, then 400 validation_failed with a pointer to each, and no job, no call, no reservation', async () => {
    const res = await generate(world, account, { category: 'dentist', state: 'US', filters: { ...ENTERPRISE, includeClosed: true } });
    expect(res.status).toBe(400);
    expect(res.get('Content-Type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'validation_failed' });
    expect(pointers(res.body)).toEqual(
      Object.keys(ENTERPRISE)
        .map((name) => `#/filters/${name}`)
        .sort(),
    );
    expect(res.body.errors[0].detail).toMatch(/GOOGLE_PLACES_FIELDS=pro/);
    expect(await world.db.job.count({ where: { accountId: account.accountId } })).toBe(0);
    expect(google.requests).toHaveLength(0);
  });

  it('when a generate filters only on Pro fields (includeClosed reads businessStatus), then it is accepted', async () => {
    const res = await generate(
      world,
      account,
      { category: 'dentist', state: 'US', filters: { includeClosed: true } },
      { Prefer: 'wait=0' },
    );
    expect(res.status).toBe(202);
  });

  it("when a batch's second request filters on a rating, then 400 pointing under #/requests/1", async () => {
    const res = await world.http
      .post('/api/v1/leads/batches')
      .set(account.auth)
      .set('Idempotency-Key', idempotencyKey())
      .send({
        requests: [
          { category: 'dentist', state: 'US' },
          { category: 'dentist', state: 'US', filters: { minRating: 4.5 } },
        ],
      });
    expect(res.status).toBe(400);
    expect(pointers(res.body)).toEqual(['#/requests/1/filters/minRating']);
  });

  it('when a quote or an area batch filters on a phone, then 400 pointing under #/request, before the area is surveyed', async () => {
    const request = { category: 'dentist', state: 'US', filters: { requirePhone: true } };
    const quote = await world.http.post('/api/v1/leads/quotes').set(account.auth).send({ area: AREA, request });
    expect(quote.status).toBe(400);
    expect(pointers(quote.body)).toEqual(['#/request/filters/requirePhone']);
    const batch = await world.http
      .post('/api/v1/leads/batches')
      .set(account.auth)
      .set('Idempotency-Key', idempotencyKey())
      .send({ area: AREA, request });
    expect(batch.status).toBe(400);
    expect(pointers(batch.body)).toEqual(['#/request/filters/requirePhone']);
    expect(google.requests).toHaveLength(0);
  });
});

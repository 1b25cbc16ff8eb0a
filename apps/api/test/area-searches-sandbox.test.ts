import { startWorker, type RunningWorker } from '../../worker/src/start-worker';
import { idempotencyKey, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

// The sandbox answers area searches offline (docs/api.md#area-searches): a quote and its run agree.
const AREA = { bbox: { south: 41.8, west: -87.76, north: 41.86, east: -87.7 } };
const REQUEST = { category: 'dentist', state: 'US' };

describe('area searches in the sandbox', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld({ env: { WORKER_CONCURRENCY: '4', SANDBOX_PAGE_DELAY_MS: '0' } });
  });
  afterAll(async () => {
    await world?.close();
  });
  beforeEach(async () => {
    account = await buildAccount(world.db, { credits: 100_000 });
  });

  async function run(body: object) {
    const created = await world.http.post('/api/v1/leads/batches').set(account.auth).set('Idempotency-Key', idempotencyKey()).send(body);
    expect(created.status).toBe(202);
    const until = Date.now() + 90_000;
    for (;;) {
      const res = await world.http.get(`/api/v1/leads/batches/${created.body.batchId}`).set(account.auth);
      if (res.body.terminal) return res.body;
      if (Date.now() > until) throw new Error(`batch not terminal: ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('when an area is quoted and run, with and without the quote, then both runs deliver the quoted places and the quoted run charges the quoted credits', async () => {
    const quoted = await world.http.post('/api/v1/leads/quotes').set(account.auth).send({ area: AREA, request: REQUEST });
    expect(quoted.status).toBe(201);
    expect(quoted.body).toMatchObject({ provider: 'sandbox', upstreamCalls: { placeResolution: 0, idsOnly: 0, withLocation: 0 } });
    expect(quoted.body.places).toBeGreaterThan(100);
    expect(quoted.body.tiles.searched).toBeGreaterThan(quoted.body.tiles.toRun - 1);

    const fromQuote = await run({ quoteId: quoted.body.quoteId });
    expect(fromQuote.deliveredCount).toBe(quoted.body.places);
    expect(fromQuote.creditsCharged).toBe(quoted.body.credits);
    expect(fromQuote.areaSearch.tiles).toMatchObject({ total: quoted.body.tiles.toRun, split: 0 });

    const adaptive = await run({ area: AREA, request: REQUEST });
    expect(adaptive.deliveredCount).toBe(quoted.body.places);
    expect(adaptive.areaSearch.tiles.split).toBeGreaterThan(0);
  });

  it('when an area batch has a batch-wide maxResults, then two workers deliver and charge exactly that many across its tiles, no tile a minimum, and the rest are not started', async () => {
    // A second worker on the same queues: two processes' page commits race for the batch's last places.
    const second: RunningWorker = await startWorker(world.config);
    try {
      const done = await run({ area: AREA, request: REQUEST, maxResults: 37 });
      expect(done).toMatchObject({ status: 'COMPLETE', deliveredCount: 37, creditsCharged: 74 });
      expect(done.areaSearch.maxResults).toBe(37);
      const leads = await world.db.lead.findMany({ where: { job: { batchId: done.batchId } }, select: { dedupKey: true } });
      expect(leads).toHaveLength(37);
      expect(new Set(leads.map((l) => l.dedupKey)).size).toBe(37);
      const children = await world.db.job.findMany({ where: { batchId: done.batchId } });
      // each child charged 2 per lead it delivered (no 10-credit minimum per tile), and the charges add up to the batch's
      expect(children.reduce((sum, c) => sum + (c.creditsCharged ?? 0), 0)).toBe(74);
      for (const child of children) expect(child.creditsCharged ?? 0).toBe(2 * child.deliveredCount);
      // the tiles the batch no longer needed are settled without a start or a charge
      for (const child of children.filter((c) => c.deliveredCount === 0))
        expect(child).toMatchObject({ status: 'CANCELLED', stopReason: 'batch_budget_exhausted', creditsCharged: 0 });
      const ledger = await world.db.ledgerEntry.findMany({ where: { accountId: account.accountId, kind: 'charge' } });
      expect(ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(74);
    } finally {
      await second.close();
    }
  });

  it('when a circle is searched, then nothing outside it is delivered and what its tiles listed outside is counted', async () => {
    const done = await run({ area: { circle: { center: { lat: 41.83, lng: -87.73 }, radiusMeters: 1500 } }, request: REQUEST });
    expect(done.deliveredCount).toBeGreaterThan(0);
    expect(done.areaSearch.area.kind).toBe('circle');
    expect(done.areaSearch.skipped.outsideArea).toBeGreaterThan(0);
  });
});

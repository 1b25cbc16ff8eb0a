import { idempotencyKey } from '../harness';
import { buildAccount } from '../factories';
import { sleep, workerFleet } from './fault-world';
import { checkInvariants, describeViolations } from './invariants';

// Issue 35's fleet test: an area of over 1,000 tiles (the sandbox's map, quoted first so every tile is a child
// from the start) runs under maxCredits on two worker processes, one of them SIGKILLed while tiles run. Nothing
// may be lost: the batch ends, every child is terminal, no lead twice, never past maxCredits, the ledger balanced.
const AREA = { bbox: { south: 41.5, west: -88.2, north: 42.1, east: -87.45 } };
const MAX_CREDITS = 6_000;

describe('an area search of 1,000 tiles on a fleet that loses a worker', () => {
  const fleet = workerFleet();

  it('when one of two workers is SIGKILLed mid-run, then the batch ends under maxCredits with every tile settled, no lead twice and the ledger balanced', async () => {
    const { world } = fleet;
    const workers = [0, 1].map(() => fleet.spawn({ WORKER_CONCURRENCY: '4', SANDBOX_PAGE_DELAY_MS: '20' }));
    await Promise.all(workers.map((w) => w.ready));
    const account = await buildAccount(world.db, { credits: 1_000_000 });

    const quote = await world.http
      .post('/api/v1/leads/quotes')
      .set(account.auth)
      .send({ area: AREA, request: { category: 'dentist', state: 'US' } });
    expect(quote.status).toBe(201);
    expect(quote.body.tiles.toRun).toBeGreaterThanOrEqual(1_000);
    const created = await world.http
      .post('/api/v1/leads/batches')
      .set(account.auth)
      .set('Idempotency-Key', idempotencyKey())
      .send({ quoteId: quote.body.quoteId, maxCredits: MAX_CREDITS });
    expect(created.status).toBe(202);
    const batchId = created.body.batchId as string;

    await sleep(3_000);
    workers[0]!.kill('SIGKILL');

    const until = Date.now() + 400_000;
    let batch = (await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth)).body;
    while (!batch.terminal && Date.now() < until) {
      await sleep(1_000);
      batch = (await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth)).body;
    }
    expect(batch.terminal).toBeDefined();
    expect(batch.childCount).toBeGreaterThanOrEqual(1_000);
    expect(batch.creditsCharged).toBeLessThanOrEqual(MAX_CREDITS);
    expect(batch.creditsCharged).toBeGreaterThan(MAX_CREDITS / 2);
    expect(batch.areaSearch.tiles.total).toBe(batch.childCount);
    expect(batch.areaSearch.tiles.searching).toBe(0);
    const { rows } = await world.db.sql.query<{ open: number; leads: number; distinct: number; delivered: number }>(
      `SELECT (SELECT count(*)::int FROM jobs WHERE batch_id = $1 AND status IN ('queued', 'running')) AS open,
              count(l.*)::int AS leads, count(DISTINCT l.dedup_key)::int AS distinct,
              (SELECT COALESCE(sum(delivered_count), 0)::int FROM jobs WHERE batch_id = $1) AS delivered
       FROM leads l JOIN jobs j ON j.id = l.job_id WHERE j.batch_id = $1`,
      [batchId],
    );
    expect(rows[0]).toEqual({ open: 0, leads: batch.deliveredCount, distinct: batch.deliveredCount, delivered: batch.deliveredCount });
    expect(describeViolations(await checkInvariants(world.config.database.url))).toBe('');
  }, 480_000);

  it('when the batch has a batch-wide maxResults and one of two fresh workers is SIGKILLed, then it delivers and charges exactly maxResults, no lead twice, the ledger balanced', async () => {
    const { world } = fleet;
    const pair = [0, 1].map(() => fleet.spawn({ WORKER_CONCURRENCY: '4', SANDBOX_PAGE_DELAY_MS: '20' }));
    await Promise.all(pair.map((w) => w.ready));
    const account = await buildAccount(world.db, { credits: 1_000_000 });
    // 2,000 leads are 4,000 credits: under maxCredits with every tile's 120 reserved at once, so maxResults binds.
    const MAX_RESULTS = 2_000;
    const created = await world.http
      .post('/api/v1/leads/batches')
      .set(account.auth)
      .set('Idempotency-Key', idempotencyKey())
      .send({ area: AREA, request: { category: 'dentist', state: 'US' }, maxResults: MAX_RESULTS, maxCredits: MAX_CREDITS });
    expect(created.status).toBe(202);
    const batchId = created.body.batchId as string;

    await sleep(3_000);
    pair[0]!.kill('SIGKILL');

    const until = Date.now() + 400_000;
    let batch = (await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth)).body;
    while (!batch.terminal && Date.now() < until) {
      await sleep(1_000);
      batch = (await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth)).body;
    }
    expect(batch).toMatchObject({ status: 'COMPLETE', deliveredCount: MAX_RESULTS, creditsCharged: 2 * MAX_RESULTS });
    const { rows } = await world.db.sql.query<{ open: number; leads: number; distinct: number; charged: number }>(
      `SELECT (SELECT count(*)::int FROM jobs WHERE batch_id = $1 AND status IN ('queued', 'running')) AS open,
              count(l.*)::int AS leads, count(DISTINCT l.dedup_key)::int AS distinct,
              (SELECT COALESCE(sum(amount), 0)::int FROM credit_ledger c JOIN jobs j2 ON j2.id = c.job_id
                WHERE j2.batch_id = $1 AND c.kind = 'charge') AS charged
       FROM leads l JOIN jobs j ON j.id = l.job_id WHERE j.batch_id = $1`,
      [batchId],
    );
    expect(rows[0]).toEqual({ open: 0, leads: MAX_RESULTS, distinct: MAX_RESULTS, charged: 2 * MAX_RESULTS });
    expect(describeViolations(await checkInvariants(world.config.database.url))).toBe('');
  }, 480_000);
});

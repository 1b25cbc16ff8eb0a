import { idempotencyKey, startWorld, until, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

// Batch monitors through the API with a worker in process (decision 022): `batch: { requests }` instead of
// `request`, each run a batch (decision 021) with excludeDelivered forced. Runs that deliver only what is new,
// overlap, switching between request and batch, run-now and another account's 404. MONITOR_MIN_INTERVAL_MS is a second.

// The sandbox answers one search with the same leads every time, as a real upstream would.
const austin = { category: 'dentist', state: 'US', city: 'Austin', keyword: 'sandbox:only=4', maxResults: 4 };
const dallas = { category: 'dentist', state: 'US', city: 'Dallas', keyword: 'sandbox:only=3', maxResults: 3 };

interface BatchRun {
  batchId: string;
  status: string;
  childCount: number;
  requestedCount: number;
  deliveredCount: number;
  skippedAlreadyDelivered: number;
  creditsCharged: number | null;
}
interface RunBody {
  runId: string;
  kind: string;
  scheduledFor: string | null;
  skipReason: string | null;
  job: unknown;
  batch: BatchRun | null;
}

describe('batch monitors', () => {
  let world: TestWorld;
  let account: TestAccount;

  beforeAll(async () => {
    world = await startWorld({ env: { MONITOR_MIN_INTERVAL_MS: '1000', MONITOR_SWEEP_MS: '500' } });
    account = await buildAccount(world.db, { credits: 10_000 });
  });
  afterAll(() => world.close());

  const create = (body: object, who: TestAccount = account) => world.http.post('/api/v1/monitors').set(who.auth).send(body);
  const pause = (id: string) => world.http.patch(`/api/v1/monitors/${id}`).set(account.auth).send({ enabled: false });
  const runs = async (id: string, who: TestAccount = account) => {
    const res = await world.http.get(`/api/v1/monitors/${id}/runs`).set(who.auth);
    expect(res.status).toBe(200);
    return res.body.items as RunBody[];
  };
  const finished = (items: RunBody[]) => items.filter((r) => r.batch && r.batch.status !== 'running');
  const batchOf = async (batchId: string) => {
    const res = await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth);
    expect(res.status).toBe(200);
    return res.body;
  };

  it('when a batch monitor body is wrong in several places, then 400 lists every problem with its pointer into the batch', async () => {
    const res = await create({
      name: 'x',
      batch: {
        requests: [austin, { ...austin, state: 'USA' }, { ...dallas, maxResults: 0, webhookUrl: 'https://example.com/x' }, 'nope'],
        maxCredits: 5,
      },
      schedule: { every: 'PT1H' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    const pointers = (res.body.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort();
    expect(pointers).toEqual(['#/batch/maxCredits', '#/batch/requests/1/state', '#/batch/requests/2/maxResults', '#/batch/requests/3']);
    // A request that passes the generate schema still follows the monitor's rules: no webhookUrl, no excludeDelivered false.
    const own = await create({
      name: 'x',
      batch: { requests: [austin, { ...dallas, webhookUrl: 'https://example.com/x', excludeDelivered: false }] },
      schedule: { every: 'PT1H' },
    });
    expect((own.body.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort()).toEqual([
      '#/batch/requests/1/excludeDelivered',
      '#/batch/requests/1/webhookUrl',
    ]);

    const both = await create({ name: 'x', request: austin, batch: { requests: [austin] }, schedule: { every: 'PT1H' } });
    expect(both.body.errors).toEqual([{ pointer: '#', detail: expect.stringMatching(/either request or batch/) }]);
    const neither = await create({ name: 'x', schedule: { every: 'PT1H' } });
    expect(neither.body.errors).toEqual([{ pointer: '#', detail: expect.stringMatching(/needs request .* or batch/) }]);
    const notObject = await create({ name: 'x', batch: 'nope', schedule: { every: 'PT1H' } });
    expect(notObject.body.errors).toEqual([{ pointer: '#/batch', detail: expect.stringMatching(/object with requests/) }]);
    const unsafe = await create({ name: 'x', batch: { requests: [{ ...austin, city: 'Aus\u0000tin' }] }, schedule: { every: 'PT1H' } });
    expect([unsafe.status, unsafe.body.errors]).toEqual([
      400,
      [{ pointer: '#/batch/requests/0/city', detail: expect.stringMatching(/NUL/) }],
    ]);
    const empty = await create({ name: 'x', batch: { requests: [] }, schedule: { every: 'PT1H' } });
    expect(empty.body.errors).toEqual([{ pointer: '#/batch/requests', detail: expect.any(String) }]);
    // Each request's worst case must fit (a child whose own does not could never start); their sum need not.
    const capped = await create({
      name: 'x',
      batch: { requests: [austin, { ...dallas, maxResults: 20 }] },
      schedule: { every: 'PT1H' },
      maxCreditsPerRun: 12,
    });
    expect(capped.body.errors).toEqual([
      { pointer: '#/maxCreditsPerRun', detail: expect.stringMatching(/^batch\.requests\[1\] reserve up to \d+ credits/) },
    ]);
    const fits = await create({
      name: 'x',
      batch: { requests: [austin, dallas] },
      schedule: { every: 'PT1H' },
      maxCreditsPerRun: 12,
      enabled: false,
    });
    expect(fits.status).toBe(201);
    await world.http.delete(`/api/v1/monitors/${fits.body.monitorId}`).set(account.auth);
    const patchBoth = await world.http
      .patch('/api/v1/monitors/mon_000000000000000000000000')
      .set(account.auth)
      .send({ request: austin, batch: { requests: [austin] } });
    expect(patchBoth.body.errors).toEqual([{ pointer: '#', detail: expect.stringMatching(/either request or batch/) }]);
  });

  it('when a batch monitor runs twice over the same areas, then the second batch delivers nothing new: EMPTY, charged 0', async () => {
    const created = await create({
      name: 'Texas dentists',
      batch: { requests: [austin, dallas] },
      schedule: { every: 'PT2S' },
      maxCreditsPerRun: 50,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ request: null, batch: { requests: [{ city: 'Austin' }, { city: 'Dallas' }] }, lastRun: null });
    expect(created.body.batch.requests[0]).not.toHaveProperty('excludeDelivered');
    const id = created.body.monitorId as string;

    const done = await until(
      '2 finished batch runs',
      () => runs(id),
      (items) => finished(items).length >= 2,
    );
    await pause(id);
    const [first, second] = finished(done).reverse();
    expect(first!.batch).toMatchObject({ childCount: 2, requestedCount: 7, skippedAlreadyDelivered: 0 });
    expect(['COMPLETE', 'PARTIAL']).toContain(first!.batch!.status);
    expect(first!.batch!.deliveredCount).toBeGreaterThan(0);
    expect(first!.batch!.creditsCharged).toBeGreaterThan(0);
    // Everything the second found, the first delivered: nothing new, nothing billed.
    expect(second!.batch).toMatchObject({
      status: 'EMPTY',
      deliveredCount: 0,
      creditsCharged: 0,
      skippedAlreadyDelivered: first!.batch!.deliveredCount,
    });
    expect(new Set(done.map((r) => r.scheduledFor)).size).toBe(done.length);

    const batch = await batchOf(first!.batch!.batchId);
    expect(batch).toMatchObject({ monitorId: id, excludeDelivered: true, maxCredits: 50, name: 'Texas dentists' });
    const children = await world.http.get(`/api/v1/leads/batches/${first!.batch!.batchId}/jobs`).set(account.auth);
    for (const child of children.body.items as Array<{ request: { excludeDelivered?: boolean } }>)
      expect(child.request.excludeDelivered).toBe(true);
    const monitor = await world.http.get(`/api/v1/monitors/${id}`).set(account.auth);
    expect(monitor.body.lastRun).toMatchObject({
      runId: expect.stringMatching(/^mrun_/),
      jobId: null,
      batchId: expect.stringMatching(/^bat_/),
    });
  });

  it('when a batch run outlasts the interval, then the tick that comes meanwhile is skipped and recorded as overlap', async () => {
    const created = await create({
      name: 'slow batch',
      batch: { requests: [{ ...austin, keyword: 'sandbox:delay=2500', maxResults: 10 }] },
      schedule: { every: 'PT1S' },
    });
    const id = created.body.monitorId as string;
    const items = await until(
      'a skipped tick',
      () => runs(id),
      (list) => list.some((r) => r.skipReason === 'overlap'),
    );
    await pause(id);
    expect(items.find((r) => r.skipReason === 'overlap')).toMatchObject({
      kind: 'scheduled',
      job: null,
      batch: null,
      scheduledFor: expect.any(String),
    });
    // Never two batches of one monitor at once.
    expect(items.filter((r) => r.batch?.status === 'running').length).toBeLessThanOrEqual(1);
  });

  it('when a monitor switches between request and batch and is run now, then each run is what it runs now, and a new request delivers only what is new', async () => {
    const owner = await buildAccount(world.db, { credits: 1_000 });
    const created = await create({ name: 'switch', request: austin, schedule: { every: 'PT1H' } }, owner);
    const id = created.body.monitorId as string;
    const run = (key: string) => world.http.post(`/api/v1/monitors/${id}/run`).set(owner.auth).set('Idempotency-Key', key);

    const asJob = await run('job-run');
    expect(asJob.status).toBe(202);
    expect(asJob.body).toMatchObject({ jobId: expect.any(String), monitorId: id });
    await until(
      'the job run',
      async () => (await world.http.get(`/api/v1/leads/jobs/${asJob.body.jobId}`).set(owner.auth)).body.status,
      (s) => s === 'COMPLETE',
    );

    const switched = await world.http
      .patch(`/api/v1/monitors/${id}`)
      .set(owner.auth)
      .send({ batch: { requests: [austin, dallas] } });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ request: null, batch: { requests: [{ city: 'Austin' }, { city: 'Dallas' }] } });
    const asBatch = await run('batch-run');
    expect(asBatch.status).toBe(202);
    expect(asBatch.body).toMatchObject({ batchId: expect.stringMatching(/^bat_/), monitorId: id, excludeDelivered: true });
    expect(asBatch.headers.location).toBe(asBatch.body.pollUrl);
    const replay = await run('batch-run');
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body.batchId]).toEqual([202, 'true', asBatch.body.batchId]);
    const busy = await run('another');
    if (busy.status === 409) expect(busy.body).toMatchObject({ code: 'monitor_run_in_progress', batchId: asBatch.body.batchId });
    else expect(busy.status).toBe(202); // the batch ended first: then this is a run of its own

    const runsNow = await until(
      'the batch run',
      () => runs(id, owner),
      (items) => finished(items).length >= 1,
    );
    const batchRun = runsNow.find((r) => r.batch?.batchId === asBatch.body.batchId)!;
    // Austin was delivered by the job run: only Dallas is new.
    expect(batchRun).toMatchObject({ kind: 'manual', job: null, batch: { deliveredCount: 3, skippedAlreadyDelivered: 4 } });

    const back = await world.http.patch(`/api/v1/monitors/${id}`).set(owner.auth).send({ request: dallas });
    expect(back.body).toMatchObject({ request: { city: 'Dallas' }, batch: null });
    await world.http.delete(`/api/v1/monitors/${id}`).set(owner.auth);
    // Its runs stay readable, the batch run with them.
    expect((await runs(id, owner)).some((r) => r.batch?.batchId === asBatch.body.batchId)).toBe(true);
  });

  it("when another account names a batch monitor, then every path answers 404, and its batches are not the other's", async () => {
    const created = await create({ name: 'mine', batch: { requests: [austin] }, schedule: { every: 'PT1H' } });
    const id = created.body.monitorId as string;
    const ran = await world.http.post(`/api/v1/monitors/${id}/run`).set(account.auth).set('Idempotency-Key', idempotencyKey());
    expect(ran.status).toBe(202);
    const other = await buildAccount(world.db, { credits: 1_000 });
    const answers = await Promise.all([
      world.http.get(`/api/v1/monitors/${id}`).set(other.auth),
      world.http
        .patch(`/api/v1/monitors/${id}`)
        .set(other.auth)
        .send({ batch: { requests: [dallas] } }),
      world.http.delete(`/api/v1/monitors/${id}`).set(other.auth),
      world.http.post(`/api/v1/monitors/${id}/run`).set(other.auth).set('Idempotency-Key', 'x'),
      world.http.get(`/api/v1/monitors/${id}/runs`).set(other.auth),
    ]);
    for (const res of answers) expect([res.status, res.body.code]).toEqual([404, 'monitor_not_found']);
    expect((await world.http.get(`/api/v1/leads/batches/${ran.body.batchId}`).set(other.auth)).status).toBe(404);
    await world.http.delete(`/api/v1/monitors/${id}`).set(account.auth);
  });
});

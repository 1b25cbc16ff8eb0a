import { alarmId, createMonitorAlarms, type MonitorAlarms } from '@leadgen/queue';
import { idempotencyKey, pollUntilTerminal, startWorld, until, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

// Monitors through the API with a worker in process (decision 022): the resource, runs that deliver
// only what is new, overlap, pause, resume, delete and run-now. MONITOR_MIN_INTERVAL_MS is lowered to a second.

// The sandbox answers one search with the same 5 leads every time, as a real upstream would.
const request = { category: 'dentist', state: 'US', city: 'Austin', keyword: 'sandbox:only=5', maxResults: 5 };

interface RunBody {
  runId: string;
  kind: string;
  scheduledFor: string | null;
  skipReason: string | null;
  job: { jobId: string; status: string; deliveredCount: number; skippedAlreadyDelivered: number; creditsCharged: number | null } | null;
}

describe('monitors', () => {
  let world: TestWorld;
  let account: TestAccount;
  let alarms: MonitorAlarms;

  beforeAll(async () => {
    world = await startWorld({ env: { MONITOR_MIN_INTERVAL_MS: '1000', MONITOR_SWEEP_MS: '500', MONITOR_MAX_PER_ACCOUNT: '5' } });
    account = await buildAccount(world.db, { credits: 10_000 });
    alarms = createMonitorAlarms(world.config.redis, 'test-alarms');
  });
  afterAll(async () => {
    await alarms.close();
    await world.close();
  });
  /** The state of the alarm set for that monitor and due time (`unknown`: there is none). */
  const alarm = (id: string, at: string) => alarms.queue().getJobState(alarmId(id, new Date(at)));

  const create = (body: object, who: TestAccount = account) => world.http.post('/api/v1/monitors').set(who.auth).send(body);
  const runs = async (id: string, who: TestAccount = account) => {
    const res = await world.http.get(`/api/v1/monitors/${id}/runs`).set(who.auth);
    expect(res.status).toBe(200);
    return res.body.items as RunBody[];
  };
  const finishedRuns = (id: string, count: number) =>
    until(
      `${count} finished runs`,
      () => runs(id),
      (items) => items.filter((r) => r.job && !['queued', 'running'].includes(r.job.status)).length >= count,
    );

  it('when a monitor body is wrong in several places, then 400 lists every problem with its pointer', async () => {
    const res = await create({
      name: '',
      request: { category: 'dentist', state: 'USA', maxResults: 0, webhookUrl: 'https://example.com/x' },
      schedule: { every: 'PT0.5S' },
      batch: { requests: [] },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    const pointers = (res.body.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort();
    // `batch` is the alternative to `request` (batch-monitors.test.ts): sent with it, the body says so at its root.
    expect(pointers).toEqual([
      '#',
      '#/batch/requests',
      '#/name',
      '#/request/maxResults',
      '#/request/state',
      '#/request/webhookUrl',
      '#/schedule/every',
    ]);

    const tooOften = await create({ name: 'x', request, schedule: { every: 'PT0S' } });
    expect(tooOften.status).toBe(400);
    expect(tooOften.body.errors).toEqual([{ pointer: '#/schedule/every', detail: expect.stringMatching(/MONITOR_MIN_INTERVAL_MS/) }]);
    const badCron = await create({ name: 'x', request, schedule: { cron: '0 25 * * *', timezone: 'UTC' } });
    expect(badCron.body.errors).toEqual([{ pointer: '#/schedule/cron', detail: expect.stringMatching(/not valid/) }]);
    const noZone = await create({ name: 'x', request, schedule: { cron: '0 7 * * 1' } });
    expect(noZone.body.errors[0].pointer).toBe('#/schedule');
    const badZone = await create({ name: 'x', request, schedule: { cron: '0 7 * * 1', timezone: 'Europe/Atlantis' } });
    expect(badZone.body.errors).toEqual([{ pointer: '#/schedule/timezone', detail: expect.any(String) }]);
    const capped = await create({ name: 'x', request, schedule: { every: 'PT1H' }, maxCreditsPerRun: 5 });
    expect(capped.body.errors).toEqual([{ pointer: '#/maxCreditsPerRun', detail: expect.stringMatching(/reserves up to 10 credits/) }]);
  });

  it('when a monitor runs twice over the same area, then the second run delivers nothing new: EMPTY, charged 0', async () => {
    const created = await create({ name: 'Austin dentists', request, schedule: { every: 'PT2S' } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toMatch(new RegExp(`/api/v1/monitors/${created.body.monitorId}$`));
    expect(created.body).toMatchObject({ enabled: true, pausedReason: null, lastRun: null, schedule: { every: 'PT2S' } });
    const nextRunAt = Date.parse(created.body.nextRunAt);
    expect(nextRunAt - Date.now()).toBeGreaterThan(0);
    expect(nextRunAt - Date.now()).toBeLessThanOrEqual(2_000);
    const id = created.body.monitorId as string;

    const done = await finishedRuns(id, 2);
    await world.http.patch(`/api/v1/monitors/${id}`).set(account.auth).send({ enabled: false });
    // Newest first: the first run is the last of the list.
    const [first, second] = done.filter((r) => r.job).reverse();
    expect(first!.job).toMatchObject({ status: 'COMPLETE', deliveredCount: 5, skippedAlreadyDelivered: 0, creditsCharged: 10 });
    expect(second!.job).toMatchObject({ status: 'EMPTY', deliveredCount: 0, skippedAlreadyDelivered: 5, creditsCharged: 0 });
    expect(new Set(done.map((r) => r.scheduledFor)).size).toBe(done.length);

    const job = await pollUntilTerminal(world, account, first!.job!.jobId);
    expect(job.monitorId).toBe(id);
    expect(job.request.excludeDelivered).toBe(true);
    const monitor = await world.http.get(`/api/v1/monitors/${id}`).set(account.auth);
    expect(monitor.body.lastRun).toMatchObject({ runId: expect.stringMatching(/^mrun_/) });
    expect(monitor.body).toMatchObject({ enabled: false, pausedReason: 'owner', nextRunAt: null });
  });

  it('when a run outlasts the interval, then the tick that comes meanwhile is skipped and recorded as overlap', async () => {
    const created = await create({
      name: 'slow',
      request: { ...request, keyword: 'sandbox:delay=2500', maxResults: 10 },
      schedule: { every: 'PT1S' },
    });
    const id = created.body.monitorId as string;
    const items = await until(
      'a skipped tick',
      () => runs(id),
      (list) => list.some((r) => r.skipReason === 'overlap'),
    );
    await world.http.patch(`/api/v1/monitors/${id}`).set(account.auth).send({ enabled: false });
    const skipped = items.find((r) => r.skipReason === 'overlap')!;
    expect(skipped).toMatchObject({ kind: 'scheduled', job: null, scheduledFor: expect.any(String) });
    // Never two runs of one monitor at once.
    const open = items.filter((r) => r.job && ['queued', 'running'].includes(r.job.status));
    expect(open.length).toBeLessThanOrEqual(1);
  });

  it('when a monitor is paused, resumed, rescheduled and deleted, then its next run follows at once and its runs stay readable', async () => {
    const created = await create({ name: 'lifecycle', request, schedule: { every: 'PT1H' }, enabled: false });
    expect(created.body).toMatchObject({ enabled: false, pausedReason: 'owner', nextRunAt: null });
    const id = created.body.monitorId as string;

    const resumed = await world.http.patch(`/api/v1/monitors/${id}`).set(account.auth).send({ enabled: true });
    expect(resumed.status).toBe(200);
    expect(resumed.body.pausedReason).toBeNull();
    expect(Math.abs(Date.parse(resumed.body.nextRunAt) - (Date.now() + 3_600_000))).toBeLessThan(60_000);
    expect(await alarm(id, resumed.body.nextRunAt)).toBe('delayed');

    const moved = await world.http
      .patch(`/api/v1/monitors/${id}`)
      .set(account.auth)
      .send({ schedule: { cron: '0 7 * * 1', timezone: 'Europe/Berlin' } });
    expect(moved.body.schedule).toEqual({ cron: '0 7 * * 1', timezone: 'Europe/Berlin' });
    const next = new Date(moved.body.nextRunAt);
    expect(next.getUTCDay()).toBe(1);
    expect([5, 6]).toContain(next.getUTCHours());
    // The alarm moved with the schedule.
    expect(await alarm(id, resumed.body.nextRunAt)).toBe('unknown');
    expect(await alarm(id, moved.body.nextRunAt)).toBe('delayed');

    const list = await world.http.get('/api/v1/monitors').set(account.auth);
    expect(list.body.items.map((m: { monitorId: string }) => m.monitorId)).toContain(id);

    const run = await world.http.post(`/api/v1/monitors/${id}/run`).set(account.auth).set('Idempotency-Key', 'run-once');
    expect(run.status).toBe(202);
    expect(run.body).toMatchObject({ monitorId: id });
    expect(run.headers.location).toBe(run.body.pollUrl);
    const replay = await world.http.post(`/api/v1/monitors/${id}/run`).set(account.auth).set('Idempotency-Key', 'run-once');
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.jobId).toBe(run.body.jobId);
    await pollUntilTerminal(world, account, run.body.jobId);

    const deleted = await world.http.delete(`/api/v1/monitors/${id}`).set(account.auth);
    expect(deleted.status).toBe(204);
    expect(await alarm(id, moved.body.nextRunAt)).toBe('unknown');
    expect((await world.http.get(`/api/v1/monitors/${id}`).set(account.auth)).status).toBe(404);
    const kept = await runs(id);
    expect(kept.map((r) => [r.kind, r.job?.jobId])).toEqual([['manual', run.body.jobId]]);
    expect((await world.http.get(`/api/v1/leads/jobs/${run.body.jobId}`).set(account.auth)).body.monitorId).toBe(id);
  });

  it('when a run is asked for while one is going, then 409 monitor_run_in_progress; a missing key is 400', async () => {
    const created = await create({
      name: 'busy',
      request: { ...request, keyword: 'sandbox:delay=1500', maxResults: 10 },
      schedule: { every: 'PT1H' },
    });
    const id = created.body.monitorId as string;
    const first = await world.http.post(`/api/v1/monitors/${id}/run`).set(account.auth).set('Idempotency-Key', idempotencyKey());
    expect(first.status).toBe(202);
    const second = await world.http.post(`/api/v1/monitors/${id}/run`).set(account.auth).set('Idempotency-Key', idempotencyKey());
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'monitor_run_in_progress', jobId: first.body.jobId });
    const keyless = await world.http.post(`/api/v1/monitors/${id}/run`).set(account.auth);
    expect(keyless.body.code).toBe('idempotency_key_missing');
    await pollUntilTerminal(world, account, first.body.jobId);
    await world.http.delete(`/api/v1/monitors/${id}`).set(account.auth);
  });

  it('when another account names a monitor, then every path answers 404 as for one that does not exist', async () => {
    const created = await create({ name: 'mine', request, schedule: { every: 'PT1H' } });
    const id = created.body.monitorId as string;
    const other = await buildAccount(world.db, { credits: 1_000 });
    const answers = await Promise.all([
      world.http.get(`/api/v1/monitors/${id}`).set(other.auth),
      world.http.patch(`/api/v1/monitors/${id}`).set(other.auth).send({ enabled: false }),
      world.http.delete(`/api/v1/monitors/${id}`).set(other.auth),
      world.http.post(`/api/v1/monitors/${id}/run`).set(other.auth).set('Idempotency-Key', 'x'),
      world.http.get(`/api/v1/monitors/${id}/runs`).set(other.auth),
      world.http.get('/api/v1/monitors/mon_doesnotexist').set(account.auth),
    ]);
    for (const res of answers) expect([res.status, res.body.code]).toEqual([404, 'monitor_not_found']);
    expect((await world.http.get('/api/v1/monitors').set(other.auth)).body.items).toEqual([]);
    await world.http.delete(`/api/v1/monitors/${id}`).set(account.auth);
  });

  it('when an account has MONITOR_MAX_PER_ACCOUNT monitors, then one more is 409 monitor_limit', async () => {
    const owner = await buildAccount(world.db, { credits: 1_000 });
    for (let i = 0; i < 5; i += 1)
      expect((await create({ name: `m${i}`, request, schedule: { every: 'PT1H' }, enabled: false }, owner)).status).toBe(201);
    const over = await create({ name: 'one more', request, schedule: { every: 'PT1H' } }, owner);
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ code: 'monitor_limit', limit: 5 });
  });
});

import { createDatabase, settleJob, startManualRun, tickMonitor, type Database } from '../src';
import { buildAccount, buildMonitor } from '../../../test/factories';

// A monitor's tick in PostgreSQL (decision 022): under the monitor's row lock and only when the stored due
// time has come, so however many callers ring at once, one run is made per due time, counted here in the database.

const OPTIONS = { idempotencyTtlHours: 1, pauseAfterFailures: 2 };
const HOUR = 3_600_000;

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 12 });
});
afterAll(async () => {
  // Left enabled and overdue, these would be ticked by a sweeping worker of another test file.
  await db.sql.query(`UPDATE monitors SET enabled = false, next_run_at = NULL WHERE name = 'ticks'`);
  await db.$disconnect();
});

const BATCH = {
  requests: [
    { source: 'google_maps' as const, category: 'dentist', state: 'US', city: 'Austin', maxResults: 5 },
    { source: 'google_maps' as const, category: 'dentist', state: 'US', city: 'Dallas', maxResults: 5 },
  ],
};

async function newMonitor(
  credits: number,
  nextRunAt: Date,
  every = 'PT1H',
  batch: typeof BATCH | null = null,
  maxCreditsPerRun: number | null = null,
) {
  const { accountId } = await buildAccount(db, { credits, name: 'monitor-ticks' });
  return buildMonitor(db, {
    accountId,
    name: 'ticks',
    request: batch ? null : { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 5 },
    ...(batch ? { batch } : {}),
    schedule: { every },
    maxCreditsPerRun,
    nextRunAt,
  });
}

async function runsOf(monitorId: string) {
  const { rows } = await db.sql.query<{
    scheduled_for: Date | null;
    job_id: string | null;
    batch_id: string | null;
    skip_reason: string | null;
  }>('SELECT scheduled_for, job_id, batch_id, skip_reason FROM monitor_runs WHERE monitor_id = $1 ORDER BY created_at', [monitorId]);
  return rows;
}

describe('tickMonitor', () => {
  it('when ten callers tick one due monitor at once, then one job is created for that due time and the next is an hour on', async () => {
    const due = new Date(Date.now() - 1_000);
    const monitor = await newMonitor(1_000, due);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => tickMonitor(db, monitor.id, new Date(), OPTIONS)));
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'not_due')).toHaveLength(9);
    const runs = await runsOf(monitor.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.scheduled_for!.getTime()).toBe(due.getTime());
    const { rows } = await db.sql.query<{ n: number; monitor_id: string; request: { excludeDelivered?: boolean } }>(
      'SELECT count(*) OVER ()::int AS n, monitor_id, request FROM jobs WHERE monitor_id = $1',
      [monitor.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.request.excludeDelivered).toBe(true);
    const created = outcomes.find((o) => o.kind === 'created')!;
    expect(created.kind === 'created' && created.nextRunAt.getTime()).toBe(due.getTime() + HOUR);
  });

  it('when the fleet was away for three ticks, then one run is made on return and the next due time lies ahead on the grid', async () => {
    const due = new Date(Date.now() - 3 * HOUR - 60_000);
    const monitor = await newMonitor(1_000, due);
    const now = new Date();
    const first = await tickMonitor(db, monitor.id, now, OPTIONS);
    expect(first.kind).toBe('created');
    if (first.kind !== 'created') return;
    expect(first.nextRunAt.getTime()).toBe(due.getTime() + 4 * HOUR);
    expect(first.nextRunAt.getTime()).toBeGreaterThan(now.getTime());
    expect(await tickMonitor(db, monitor.id, now, OPTIONS)).toEqual({ kind: 'not_due', nextRunAt: first.nextRunAt });
    expect(await runsOf(monitor.id)).toHaveLength(1);
  });

  it('when the previous run is still going, then the tick is skipped and recorded, and the due time moves on', async () => {
    const monitor = await newMonitor(1_000, new Date(Date.now() - 1_000), 'PT1S');
    const first = await tickMonitor(db, monitor.id, new Date(), OPTIONS);
    expect(first.kind).toBe('created');
    await new Promise((r) => setTimeout(r, 1_100));
    const second = await tickMonitor(db, monitor.id, new Date(), OPTIONS);
    expect(second.kind).toBe('skipped');
    const runs = await runsOf(monitor.id);
    expect(runs.map((r) => r.skip_reason)).toEqual([null, 'overlap']);
    expect(runs[1]!.job_id).toBeNull();
  });

  it('when the account cannot cover a run, then the monitor is paused for insufficient_credits and no job is made', async () => {
    const monitor = await newMonitor(0, new Date(Date.now() - 1_000));
    const outcome = await tickMonitor(db, monitor.id, new Date(), OPTIONS);
    expect(outcome).toMatchObject({ kind: 'paused', reason: 'insufficient_credits' });
    const { rows } = await db.sql.query('SELECT enabled, paused_reason, next_run_at FROM monitors WHERE id = $1', [monitor.id]);
    expect(rows[0]).toEqual({ enabled: false, paused_reason: 'insufficient_credits', next_run_at: null });
    expect((await db.sql.query('SELECT 1 FROM jobs WHERE monitor_id = $1', [monitor.id])).rowCount).toBe(0);
    expect(await tickMonitor(db, monitor.id, new Date(), OPTIONS)).toEqual({ kind: 'not_due', nextRunAt: null });
  });

  it('when its last runs all FAILED, then the next tick pauses it for consecutive_failures instead of running', async () => {
    const monitor = await newMonitor(1_000, new Date(Date.now() - 1_000), 'PT1S');
    for (let i = 0; i < OPTIONS.pauseAfterFailures; i += 1) {
      const outcome = await tickMonitor(db, monitor.id, new Date(Date.now() + i * 2_000), OPTIONS);
      expect(outcome.kind).toBe('created');
      if (outcome.kind === 'created') await settleJob(db, outcome.jobId, { kind: 'error', reason: 'provider_error' });
    }
    const paused = await tickMonitor(db, monitor.id, new Date(Date.now() + 10_000), OPTIONS);
    expect(paused).toMatchObject({ kind: 'paused', reason: 'consecutive_failures' });
  });

  it('when the account is at its cap of open jobs for the source, then the run is held like any job and the next settlement releases it', async () => {
    const fair = { ...OPTIONS, fairness: { openJobsPerAccount: 1 } };
    const first = await newMonitor(1_000, new Date(Date.now() - 1_000));
    const opened = await tickMonitor(db, first.id, new Date(), fair);
    expect(opened).toMatchObject({ kind: 'created' });
    if (opened.kind !== 'created') return;
    // Under the cap: create_job released the run at once, so the tick hands its id over to enqueue.
    expect(opened.released).toEqual([opened.jobId]);

    // A second monitor of the same account and source: the account has one open released job already.
    const second = await buildMonitor(db, {
      accountId: first.accountId,
      name: 'ticks',
      request: { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 5 },
      nextRunAt: new Date(Date.now() - 1_000),
    });
    const held = await tickMonitor(db, second.id, new Date(), fair);
    expect(held).toMatchObject({ kind: 'created', released: [] });
    if (held.kind !== 'created') return;
    const { rows } = await db.sql.query('SELECT status::text AS status, released_at FROM jobs WHERE id = $1', [held.jobId]);
    expect(rows[0]).toEqual({ status: 'queued', released_at: null });

    const settled = await settleJob(db, opened.jobId, { kind: 'error', reason: 'provider_error' }, undefined, fair.fairness);
    expect(settled?.releasedJobIds).toEqual([held.jobId]);
  });

  it('when a run is asked for twice with one key, then one job; while it runs another key gets in_progress', async () => {
    const monitor = await newMonitor(1_000, new Date(Date.now() + HOUR));
    const first = await startManualRun(db, monitor.accountId, monitor.id, 'k1', OPTIONS);
    expect(first.kind).toBe('created');
    const again = await startManualRun(db, monitor.accountId, monitor.id, 'k1', OPTIONS);
    expect(again).toEqual({ kind: 'replay', jobId: first.kind === 'created' ? first.jobId : '', batchId: null });
    expect(await startManualRun(db, monitor.accountId, monitor.id, 'k2', OPTIONS)).toMatchObject({ kind: 'in_progress' });
    expect(await startManualRun(db, 'acc_someoneelse', monitor.id, 'k3', OPTIONS)).toEqual({ kind: 'not_found' });
    // The schedule did not move.
    const { rows } = await db.sql.query('SELECT next_run_at FROM monitors WHERE id = $1', [monitor.id]);
    expect(rows[0].next_run_at.getTime()).toBe(monitor.nextRunAt!.getTime());
  });
});

describe('tickMonitor of a batch monitor', () => {
  async function batchOf(batchId: string) {
    const { rows } = await db.sql.query<{
      monitor_id: string;
      exclude_delivered: boolean;
      max_credits: number | null;
      child_count: number;
      status: string;
    }>('SELECT monitor_id, exclude_delivered, max_credits, child_count, status FROM batches WHERE id = $1', [batchId]);
    return rows[0];
  }
  const childrenOf = async (batchId: string) =>
    (
      await db.sql.query<{ id: string; monitor_id: string | null; request: { excludeDelivered?: boolean }; released_at: Date | null }>(
        'SELECT id, monitor_id, request, released_at FROM jobs WHERE batch_id = $1 ORDER BY batch_index',
        [batchId],
      )
    ).rows;

  it('when ten callers tick one due batch monitor at once, then one batch is made for that due time, through create_batch, tagged and capped', async () => {
    const due = new Date(Date.now() - 1_000);
    const monitor = await newMonitor(1_000, due, 'PT1H', BATCH, 20);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => tickMonitor(db, monitor.id, new Date(), OPTIONS)));
    expect(outcomes.filter((o) => o.kind === 'batch_created')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'not_due')).toHaveLength(9);
    const runs = await runsOf(monitor.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ scheduled_for: due, job_id: null, batch_id: expect.stringMatching(/^bat_/) });
    const created = outcomes.find((o) => o.kind === 'batch_created')!;
    if (created.kind !== 'batch_created') return;
    expect(created).toMatchObject({
      batchId: runs[0]!.batch_id,
      children: ['google_maps', 'google_maps'],
      nextRunAt: new Date(due.getTime() + HOUR),
    });
    expect(await batchOf(created.batchId)).toEqual({
      monitor_id: monitor.id,
      exclude_delivered: true,
      max_credits: 20,
      child_count: 2,
      status: 'running',
    });
    const children = await childrenOf(created.batchId);
    // Children are held, as a batch's always are (the worker releases them after the commit), and untagged: the batch carries the monitor.
    expect(children.map((c) => [c.request.excludeDelivered, c.monitor_id, c.released_at])).toEqual([
      [true, null, null],
      [true, null, null],
    ]);
    expect((await db.sql.query('SELECT 1 FROM batches WHERE monitor_id = $1', [monitor.id])).rowCount).toBe(1);
  });

  it('when the previous batch is still running, then the tick is skipped as overlap; once it settled, the next tick makes a batch', async () => {
    const monitor = await newMonitor(1_000, new Date(Date.now() - 1_000), 'PT1S', BATCH);
    const first = await tickMonitor(db, monitor.id, new Date(), OPTIONS);
    expect(first.kind).toBe('batch_created');
    if (first.kind !== 'batch_created') return;
    const skipped = await tickMonitor(db, monitor.id, new Date(Date.now() + 1_100), OPTIONS);
    expect(skipped.kind).toBe('skipped');
    for (const child of await childrenOf(first.batchId)) await settleJob(db, child.id, { kind: 'error', reason: 'provider_error' });
    expect((await batchOf(first.batchId))!.status).toBe('FAILED');
    const next = await tickMonitor(db, monitor.id, new Date(Date.now() + 2_200), OPTIONS);
    expect(next.kind).toBe('batch_created');
    expect((await runsOf(monitor.id)).map((r) => [r.skip_reason, r.batch_id !== null])).toEqual([
      [null, true],
      ['overlap', false],
      [null, true],
    ]);
  });

  it('when its last batches all FAILED, then the next tick pauses it for consecutive_failures', async () => {
    const monitor = await newMonitor(1_000, new Date(Date.now() - 1_000), 'PT1S', BATCH);
    for (let i = 0; i < OPTIONS.pauseAfterFailures; i += 1) {
      const outcome = await tickMonitor(db, monitor.id, new Date(Date.now() + i * 2_000), OPTIONS);
      expect(outcome.kind).toBe('batch_created');
      if (outcome.kind !== 'batch_created') return;
      for (const child of await childrenOf(outcome.batchId)) await settleJob(db, child.id, { kind: 'error', reason: 'provider_error' });
    }
    const paused = await tickMonitor(db, monitor.id, new Date(Date.now() + 10_000), OPTIONS);
    expect(paused).toMatchObject({ kind: 'paused', reason: 'consecutive_failures' });
  });

  it("when the account cannot cover the batch's first child (the batches API's 402), then it is paused for insufficient_credits and no batch is made", async () => {
    const monitor = await newMonitor(5, new Date(Date.now() - 1_000), 'PT1H', BATCH);
    const outcome = await tickMonitor(db, monitor.id, new Date(), OPTIONS);
    expect(outcome).toMatchObject({ kind: 'paused', reason: 'insufficient_credits' });
    const { rows } = await db.sql.query('SELECT enabled, paused_reason, next_run_at FROM monitors WHERE id = $1', [monitor.id]);
    expect(rows[0]).toEqual({ enabled: false, paused_reason: 'insufficient_credits', next_run_at: null });
    expect((await db.sql.query('SELECT 1 FROM batches WHERE account_id = $1', [monitor.accountId])).rowCount).toBe(0);
    expect((await runsOf(monitor.id)).map((r) => r.skip_reason)).toEqual(['insufficient_credits']);
  });

  it('when a batch run is asked for twice with one key, then one batch; while it runs another key gets in_progress with the batch', async () => {
    const monitor = await newMonitor(1_000, new Date(Date.now() + HOUR), 'PT1H', BATCH);
    const first = await startManualRun(db, monitor.accountId, monitor.id, 'k1', OPTIONS);
    expect(first).toMatchObject({ kind: 'created', jobId: null, batchId: expect.stringMatching(/^bat_/) });
    if (first.kind !== 'created' || !first.batchId) return;
    expect(await startManualRun(db, monitor.accountId, monitor.id, 'k1', OPTIONS)).toEqual({
      kind: 'replay',
      jobId: null,
      batchId: first.batchId,
    });
    expect(await startManualRun(db, monitor.accountId, monitor.id, 'k2', OPTIONS)).toEqual({
      kind: 'in_progress',
      jobId: null,
      batchId: first.batchId,
    });
    expect((await batchOf(first.batchId))!.monitor_id).toBe(monitor.id);
  });
});

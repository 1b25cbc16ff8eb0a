import { useMonitorFleet } from './monitor-fleet';

// Monitors run each tick exactly once on a fleet (decision 022): two worker processes tick the same
// monitors, Redis loses every alarm between two ticks, and the whole fleet is away over three ticks.
// What counts is what PostgreSQL holds: monitor_runs rows (one per due time) and the jobs they made.

const INTERVAL_MS = 2_000;
const request = { category: 'dentist', state: 'US', city: 'Austin', keyword: 'sandbox:only=100', maxResults: 1 };

interface TickRow {
  scheduled_for: Date;
  runs: number;
  jobs: number;
  /** runs recorded as skipped: the tick came while the previous run still ran (no overlapping runs) */
  overlaps: number;
  created_at: Date;
}

describe('monitors on a fleet', () => {
  const fleet = useMonitorFleet();

  async function createMonitor(name: string) {
    const res = await fleet.world.http
      .post('/api/v1/monitors')
      .set(fleet.account.auth)
      .send({ name, request, schedule: { every: `PT${INTERVAL_MS / 1000}S` } });
    expect(res.status).toBe(201);
    return res.body.monitorId as string;
  }

  /** Per due time: how many run rows and jobs PostgreSQL holds (a tick made twice would show 2). */
  async function ticks(monitorId: string): Promise<TickRow[]> {
    const { rows } = await fleet.world.db.sql.query<TickRow>(
      `SELECT r.scheduled_for, count(*)::int AS runs, count(j.id)::int AS jobs,
         count(*) FILTER (WHERE r.skip_reason IS NOT NULL)::int AS overlaps, min(r.created_at) AS created_at
       FROM monitor_runs r LEFT JOIN jobs j ON j.id = r.job_id WHERE r.monitor_id = $1 GROUP BY r.scheduled_for ORDER BY r.scheduled_for`,
      [monitorId],
    );
    return rows;
  }
  async function jobsOf(monitorId: string): Promise<Array<{ status: string }>> {
    return (await fleet.world.db.sql.query('SELECT status::text AS status FROM jobs WHERE monitor_id = $1', [monitorId])).rows;
  }
  async function untilTicks(monitorId: string, count: number, timeoutMs = 30_000): Promise<TickRow[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await ticks(monitorId);
      const open = (await jobsOf(monitorId)).some((j) => j.status === 'queued' || j.status === 'running');
      if (rows.length >= count && !open) return rows;
      if (Date.now() > deadline) throw new Error(`${rows.length} ticks of ${count} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const pause = (monitorId: string) =>
    fleet.world.http.patch(`/api/v1/monitors/${monitorId}`).set(fleet.account.auth).send({ enabled: false });

  it('when two workers tick one monitor and Redis loses every alarm between two ticks, then each due time runs once, and runs go on', async () => {
    await fleet.startWorkers(2);
    const monitorId = await createMonitor('two workers');
    await untilTicks(monitorId, 2);
    // Between two ticks (the last run has ended, the next alarm waits in Redis): everything of this deployment goes.
    expect(await fleet.wipeRedis()).toBeGreaterThan(0);
    const wipedAt = Date.now();
    const rows = await untilTicks(monitorId, 5);
    await pause(monitorId);

    // One run per due time: its job, or (on a slow machine) a skip because the previous run still ran.
    for (const row of rows)
      expect({ at: row.scheduled_for, runs: row.runs, jobs: row.jobs + row.overlaps }).toEqual({ at: row.scheduled_for, runs: 1, jobs: 1 });
    // The sweep set the lost alarm again from PostgreSQL: ticks went on after the wipe.
    expect(rows.filter((row) => row.created_at.getTime() > wipedAt).length).toBeGreaterThanOrEqual(2);
    const spacing = rows.slice(1).map((row, i) => row.scheduled_for.getTime() - rows[i]!.scheduled_for.getTime());
    for (const gap of spacing) expect(gap % INTERVAL_MS).toBe(0);
    expect((await jobsOf(monitorId)).length).toBe(rows.filter((row) => row.jobs === 1).length);
  }, 90_000);

  it('when the whole fleet is away over three ticks, then on its return the monitor runs once, and its next run lies ahead', async () => {
    await fleet.startWorkers(1);
    const monitorId = await createMonitor('fleet away');
    const before = await untilTicks(monitorId, 1);
    await fleet.stopWorkers();
    const stoppedAt = Date.now();
    await new Promise((r) => setTimeout(r, 3 * INTERVAL_MS + 500));

    const returnedAt = Date.now();
    await fleet.startWorkers(1);
    const after = await untilTicks(monitorId, before.length + 1);
    // The due times that passed while nobody was there (at least three) were served by one run.
    const lastBefore = before[before.length - 1]!.scheduled_for.getTime();
    expect(returnedAt - stoppedAt).toBeGreaterThanOrEqual(3 * INTERVAL_MS);
    const missed = after.filter((row) => row.scheduled_for.getTime() > lastBefore && row.scheduled_for.getTime() < returnedAt);
    expect(missed).toHaveLength(1);
    expect(missed[0]).toMatchObject({ runs: 1, jobs: 1 });
    expect(missed[0]!.created_at.getTime()).toBeGreaterThan(returnedAt);
    const monitor = await fleet.world.http.get(`/api/v1/monitors/${monitorId}`).set(fleet.account.auth);
    expect(Date.parse(monitor.body.nextRunAt)).toBeGreaterThan(returnedAt);
    expect((Date.parse(monitor.body.nextRunAt) - before[0]!.scheduled_for.getTime()) % INTERVAL_MS).toBe(0);
    await pause(monitorId);
  }, 90_000);
});

import { useMonitorFleet } from './monitor-fleet';

// A batch monitor on a fleet (decision 022): two worker processes tick it, Redis loses every alarm between two
// ticks, and each due time still makes exactly one batch (counted in PostgreSQL: monitor_runs rows and the
// batches tagged with the monitor). The first batch delivers; every later one finds nothing new: EMPTY, charged 0.

const INTERVAL_MS = 2_000;
const requests = [
  { category: 'dentist', state: 'US', city: 'Austin', keyword: 'sandbox:only=2', maxResults: 2 },
  { category: 'dentist', state: 'US', city: 'Dallas', keyword: 'sandbox:only=2', maxResults: 2 },
];

interface TickRow {
  scheduled_for: Date;
  runs: number;
  batches: number;
  /** runs recorded as skipped: the tick came while the previous batch still ran (no overlapping runs) */
  overlaps: number;
  created_at: Date;
}
interface BatchRow {
  id: string;
  status: string;
  delivered_count: number;
  credits_charged: number;
  skipped: number;
}

describe('batch monitors on a fleet', () => {
  const fleet = useMonitorFleet();

  /** Per due time: how many run rows and batches PostgreSQL holds (a tick made twice would show 2). */
  async function ticks(monitorId: string): Promise<TickRow[]> {
    const { rows } = await fleet.world.db.sql.query<TickRow>(
      `SELECT r.scheduled_for, count(*)::int AS runs, count(b.id)::int AS batches,
         count(*) FILTER (WHERE r.skip_reason IS NOT NULL)::int AS overlaps, min(r.created_at) AS created_at
       FROM monitor_runs r LEFT JOIN batches b ON b.id = r.batch_id WHERE r.monitor_id = $1 GROUP BY r.scheduled_for ORDER BY r.scheduled_for`,
      [monitorId],
    );
    return rows;
  }
  async function batchesOf(monitorId: string): Promise<BatchRow[]> {
    const { rows } = await fleet.world.db.sql.query<BatchRow>(
      `SELECT b.id, b.status, b.delivered_count, b.credits_charged,
         (SELECT COALESCE(sum(j.skipped_already_delivered), 0)::int FROM jobs j WHERE j.batch_id = b.id) AS skipped
       FROM batches b WHERE b.monitor_id = $1 ORDER BY b.created_at`,
      [monitorId],
    );
    return rows;
  }
  async function untilTicks(monitorId: string, count: number, timeoutMs = 40_000): Promise<TickRow[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await ticks(monitorId);
      const open = (await batchesOf(monitorId)).some((b) => b.status === 'running');
      if (rows.length >= count && !open) return rows;
      if (Date.now() > deadline) throw new Error(`${rows.length} ticks of ${count} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  it('when two workers tick a batch monitor and Redis loses every alarm between two ticks, then each due time makes one batch, and only the first delivers', async () => {
    await fleet.startWorkers(2);
    const created = await fleet.world.http
      .post('/api/v1/monitors')
      .set(fleet.account.auth)
      .send({ name: 'fleet batch', batch: { requests }, schedule: { every: `PT${INTERVAL_MS / 1000}S` } });
    expect(created.status).toBe(201);
    const monitorId = created.body.monitorId as string;
    await untilTicks(monitorId, 2);
    expect(await fleet.wipeRedis()).toBeGreaterThan(0);
    const wipedAt = Date.now();
    const rows = await untilTicks(monitorId, 5);
    await fleet.world.http.patch(`/api/v1/monitors/${monitorId}`).set(fleet.account.auth).send({ enabled: false });

    // One run per due time: its batch, or (on a slow machine) a skip because the previous batch still ran.
    for (const row of rows)
      expect({ at: row.scheduled_for, runs: row.runs, batches: row.batches + row.overlaps }).toEqual({
        at: row.scheduled_for,
        runs: 1,
        batches: 1,
      });
    // The sweep set the batch monitor's lost alarm again from PostgreSQL: ticks went on after the wipe.
    expect(rows.filter((row) => row.created_at.getTime() > wipedAt).length).toBeGreaterThanOrEqual(2);

    const batches = await batchesOf(monitorId);
    expect(batches).toHaveLength(rows.filter((row) => row.batches === 1).length);
    expect(batches.length).toBeGreaterThanOrEqual(2);
    const [first, ...later] = batches;
    expect(first!.delivered_count).toBeGreaterThan(0);
    expect(first!.credits_charged).toBeGreaterThan(0);
    // Every later batch found only what the first delivered: nothing new, nothing billed.
    for (const batch of later)
      expect(batch).toMatchObject({
        status: 'EMPTY',
        delivered_count: 0,
        credits_charged: 0,
        skipped: first!.delivered_count + first!.skipped,
      });
  }, 120_000);
});

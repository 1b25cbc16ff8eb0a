import { generate } from '../harness';
import { buildAccount } from '../factories';
import { SCALE, sleep, workerFleet } from './fault-world';
import { checkInvariants, describeViolations } from './invariants';

// Real worker processes SIGKILLed at random every 2–3 s while jobs run, with short lock and
// stalled-check settings: a host's death is never the job's fault, so every job must still end
// with its business status, each lead delivered and billed once.
describe('worker processes killed at random while jobs run', () => {
  const fleet = workerFleet();

  it(
    'when workers keep dying mid-job, then every job still ends COMPLETE, whole, billed once, the ledger balanced',
    async () => {
      const { world } = fleet;
      const spawnWorker = () => fleet.spawn({ WORKER_CONCURRENCY: '5', SANDBOX_PAGE_DELAY_MS: '5' });
      await Promise.all([spawnWorker(), spawnWorker()].map((w) => w.ready));

      const account = await buildAccount(world.db, { credits: 10_000_000 });
      const sources = [{}, { source: 'linkedin' }, { source: 'shopify' }];
      const jobIds: string[] = [];
      for (let i = 0; i < SCALE.jobs; i += 1) {
        // 10 pages a second apart: with two workers and a kill every 2–3 s, many jobs lose their host
        // three times or more (BullMQ's stalled-job limit used to fail those).
        const res = await generate(
          world,
          account,
          { category: 'dentist', state: 'US', maxResults: 100, keyword: 'sandbox:delay=1000', ...sources[i % 3] },
          { Prefer: 'respond-async' },
        );
        expect(res.status).toBe(202);
        jobIds.push(res.body.jobId as string);
      }

      const open = async () =>
        (
          await world.db.sql.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1) AND status IN ('queued', 'running')`,
            [jobIds],
          )
        ).rows[0]!.n;
      const chaosUntil = Date.now() + SCALE.seconds * 1000;
      let kills = 0;
      while (Date.now() < chaosUntil && (await open()) > 0) {
        await sleep(2000 + Math.random() * 1000);
        const alive = fleet.alive();
        const victim = alive[Math.floor(Math.random() * alive.length)];
        if (victim) {
          victim.kill('SIGKILL');
          kills += 1;
        }
        spawnWorker();
      }
      const until = Date.now() + SCALE.settleSeconds * 1000;
      while ((await open()) > 0 && Date.now() < until) await sleep(250);

      const { rows } = await world.db.sql.query<{
        status: string;
        stop_reason: string | null;
        delivered_count: number;
        credits_charged: number;
      }>('SELECT status::text, stop_reason, delivered_count, credits_charged FROM jobs WHERE id = ANY($1)', [jobIds]);
      expect(kills).toBeGreaterThanOrEqual(3);
      expect(rows.filter((r) => r.status !== 'COMPLETE')).toEqual([]);
      expect(rows.every((r) => r.delivered_count === 100)).toBe(true);
      expect(describeViolations(await checkInvariants(world.config.database.url))).toBe('');
    },
    (SCALE.seconds + SCALE.settleSeconds + 60) * 1000,
  );
});

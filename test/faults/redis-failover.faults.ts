import { QUEUE_NAMES } from '@leadgen/queue';
import { generate, startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startLocalCluster, startLocalSentinels } from '../redis-topologies';
import { sleep, startWorkerProcess, type WorkerProcess } from './fault-world';
import { checkInvariants, describeViolations } from './invariants';

// The Redis primary that holds the running jobs' queue dies mid-run (decision 023): on a cluster its
// replica takes its slots over, through Sentinel the replica is promoted. Replication is asynchronous,
// so the newest writes of the dead primary may be gone: the lost-job sweep puts back what the queue
// lost. Every job must end, none twice: each COMPLETE with exactly its leads, the invariants intact.
const LOST_JOB_AFTER_MS = 3_000;
const LOST_JOB_SWEEP_MS = 2_000;
const BOUND_MS = 60_000;
const JOBS = 12;
const PER_JOB = 30;

interface Topology {
  env: Record<string, string>;
  /** kills the primary serving the google_maps queue and waits for the failover */
  failOver(world: TestWorld): Promise<void>;
  stop(): void;
}

async function clusterTopology(): Promise<Topology> {
  const cluster = await startLocalCluster();
  return {
    env: cluster.env,
    async failOver(world) {
      const key = world.api.deps.producer.queue('google_maps').keys.wait!;
      await cluster.killAndWaitForFailover(await cluster.primaryOf(key));
    },
    stop: () => cluster.stop(),
  };
}

async function sentinelTopology(): Promise<Topology> {
  const sentinels = await startLocalSentinels();
  return { env: sentinels.env, failOver: () => sentinels.killPrimaryAndWaitForFailover(), stop: () => sentinels.stop() };
}

describe.each([
  ['a Redis Cluster', clusterTopology],
  ['Redis Sentinel', sentinelTopology],
])('the primary holding the queue dies mid-run, on %s', (_name, start) => {
  let topology: Topology;
  let world: TestWorld;
  let account: TestAccount;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    topology = await start();
    const env = { ...topology.env, LOST_JOB_AFTER_MS: String(LOST_JOB_AFTER_MS), LOST_JOB_SWEEP_MS: String(LOST_JOB_SWEEP_MS) };
    world = await startWorld({ worker: false, env });
    workers.push(
      startWorkerProcess({
        ...env,
        DATABASE_URL: world.config.database.url,
        QUEUE_PREFIX: world.config.redis.queuePrefix,
        WORKER_QUEUES: QUEUE_NAMES.google_maps,
        WORKER_LOCK_MS: '2000',
        WORKER_STALLED_CHECK_MS: '1000',
        WORKER_CONCURRENCY: '4',
      }),
    );
    await Promise.all(workers.map((w) => w.ready));
    account = await buildAccount(world.db, { credits: 10_000_000 });
  }, 90_000);

  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await world?.close();
    topology?.stop();
  });

  it('when the primary is killed, then every job ends COMPLETE once with exactly its leads, and the invariants hold', async () => {
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i += 1) {
      const res = await generate(
        world,
        account,
        { category: 'dentist', state: 'US', maxResults: PER_JOB, keyword: 'sandbox:delay=300' },
        { Prefer: 'respond-async' },
      );
      expect(res.status).toBe(202);
      ids.push(res.body.jobId as string);
    }
    await sleep(500);
    await topology.failOver(world);

    const started = Date.now();
    for (;;) {
      const { rows } = await world.db.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1) AND status IN ('queued', 'running')`,
        [ids],
      );
      if (rows[0]!.n === 0) break;
      if (Date.now() - started > BOUND_MS)
        throw new Error(`${rows[0]!.n} jobs still open ${BOUND_MS} ms after the failover\n${workers[0]!.output().slice(-3000)}`);
      await sleep(250);
    }
    const { rows } = await world.db.sql.query<{ status: string; delivered: number; leads: number; charges: number }>(
      `SELECT j.status::text, j.delivered_count AS delivered,
              (SELECT count(*)::int FROM leads l WHERE l.job_id = j.id) AS leads,
              (SELECT count(*)::int FROM credit_ledger e WHERE e.job_id = j.id AND e.kind = 'charge') AS charges
         FROM jobs j WHERE j.id = ANY($1)`,
      [ids],
    );
    expect(rows).toHaveLength(JOBS);
    expect(rows.filter((r) => r.status !== 'COMPLETE' || r.delivered !== PER_JOB || r.leads !== PER_JOB || r.charges !== 1)).toEqual([]);
    expect(describeViolations(await checkInvariants(world.config.database.url, { accountIds: [account.accountId] }))).toBe('');
  }, 180_000);
});

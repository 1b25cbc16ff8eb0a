import { QUEUE_NAMES, shardOfAccount } from '@leadgen/queue';
import { generate, startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startLocalCluster, startLocalSentinels } from '../redis-topologies';
import { sleep, startWorkerProcess, type WorkerProcess } from './fault-world';
import { checkInvariants, describeViolations } from './invariants';

// The Redis primary that holds the running jobs' queue dies mid-run (decision 023): on a cluster its
// replica takes its slots over, through Sentinel the replica is promoted. Replication is asynchronous,
// so the newest writes of the dead primary may be gone: the lost-job sweep puts back what the queue
// lost. Every job must end, none twice: each COMPLETE with exactly its leads, the invariants intact.
// With QUEUE_SHARDS=4 (decision 048) the jobs of three accounts spread over shards on several primaries; the one
// killed holds a shard other than 0 (the source's queue of one shard), and its waiting entries are dropped after the
// failover (what an asynchronous replica may not have had), so the sweep must find those jobs and put them back.
const LOST_JOB_AFTER_MS = 3_000;
const LOST_JOB_SWEEP_MS = 2_000;
const BOUND_MS = 60_000;
const JOBS = 12;
const PER_JOB = 30;
const SHARDS = 4;

interface Topology {
  env: Record<string, string>;
  /** kills the primary serving the google_maps queue (the accounts' shard that is not 0 with QUEUE_SHARDS) and waits for the failover */
  failOver(world: TestWorld, accounts: TestAccount[]): Promise<void>;
  /** whether `candidate` may join the accounts `chosen` so far (of `count`); unset: any */
  accepts?(world: TestWorld, chosen: TestAccount[], candidate: TestAccount, count: number): Promise<boolean>;
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

/** A cluster with each source's queue in SHARDS shards: the primary killed holds the first account's shard, not 0. */
async function shardedClusterTopology(): Promise<Topology> {
  const cluster = await startLocalCluster();
  const primaryOf = (world: TestWorld, account: TestAccount) =>
    cluster.primaryOf(world.api.deps.producer.queue('google_maps', account.accountId).keys.wait!);
  return {
    env: { ...cluster.env, QUEUE_SHARDS: String(SHARDS) },
    // The first account on a shard other than 0; the last makes the accounts' shards span two primaries at least.
    async accepts(world, chosen, candidate, count) {
      if (chosen.length === 0) return shardOfAccount(candidate.accountId, SHARDS) !== 0;
      if (chosen.length < count - 1) return true;
      const ports = await Promise.all([...chosen, candidate].map((a) => primaryOf(world, a)));
      return new Set(ports).size >= 2;
    },
    async failOver(world, accounts) {
      const victim = await primaryOf(world, accounts[0]!);
      const ports = await Promise.all(accounts.map((a) => primaryOf(world, a)));
      expect(ports.filter((port) => port !== victim).length).toBeGreaterThan(0);
      await cluster.killAndWaitForFailover(victim);
      // What asynchronous replication may lose, lost for sure: the waiting entries of the killed primary's shard. The
      // lost-job sweep must find those jobs (open in PostgreSQL, no live entry in any shard) and put them back there.
      const shard = world.api.deps.producer.queue('google_maps', accounts[0]!.accountId);
      const waiting = await shard.getWaitingCount();
      expect(waiting).toBeGreaterThan(0);
      await shard.drain();
      process.stderr.write(`redis failover, QUEUE_SHARDS=${SHARDS}: ${waiting} waiting entries of the killed primary's shard dropped\n`);
    },
    stop: () => cluster.stop(),
  };
}

async function sentinelTopology(): Promise<Topology> {
  const sentinels = await startLocalSentinels();
  return { env: sentinels.env, failOver: () => sentinels.killPrimaryAndWaitForFailover(), stop: () => sentinels.stop() };
}

describe.each([
  ['a Redis Cluster', clusterTopology, 1, 300],
  ['Redis Sentinel', sentinelTopology, 1, 300],
  // Slower pages, and half the jobs the first account's: its shard still has waiting entries once the failover is over.
  [`a Redis Cluster, QUEUE_SHARDS=${SHARDS}`, shardedClusterTopology, 3, 1_000],
] as const)('the primary holding the queue dies mid-run, on %s', (_name, start, accountCount, pageDelayMs) => {
  let topology: Topology;
  let world: TestWorld;
  let accounts: TestAccount[];
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
    accounts = [];
    for (let tries = 0; accounts.length < accountCount; tries += 1) {
      if (tries > 50) throw new Error('no accounts whose shards span two primaries');
      const account = await buildAccount(world.db, { credits: 10_000_000 });
      if (!topology.accepts || (await topology.accepts(world, accounts, account, accountCount))) accounts.push(account);
    }
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
        i % 2 === 0 ? accounts[0]! : (accounts[1 + (((i - 1) / 2) % (accounts.length - 1 || 1))] ?? accounts[0]!),
        { category: 'dentist', state: 'US', maxResults: PER_JOB, keyword: `sandbox:delay=${pageDelayMs}` },
        { Prefer: 'respond-async' },
      );
      expect(res.status).toBe(202);
      ids.push(res.body.jobId as string);
    }
    await sleep(500);
    await topology.failOver(world, accounts);

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
    expect(describeViolations(await checkInvariants(world.config.database.url, { accountIds: accounts.map((a) => a.accountId) }))).toBe('');
  }, 180_000);
});

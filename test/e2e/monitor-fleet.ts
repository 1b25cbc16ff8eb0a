import { once } from 'node:events';
import { Redis } from 'ioredis';
import { startWorkerProcess, startWorld, type TestWorld, type WorkerProcess } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { ownDatabase } from '../faults/fault-world';

export interface MonitorFleet {
  world: TestWorld;
  account: TestAccount;
  /** n worker processes of this fleet's deployment, each ticking monitors every half second; stopped after each test */
  startWorkers(n: number): Promise<void>;
  /** SIGTERM to every worker of the fleet, once each has exited */
  stopWorkers(): Promise<void>;
  /** deletes every key of this deployment (its QUEUE_PREFIX) from the shared Redis: the alarms are lost; how many */
  wipeRedis(): Promise<number>;
}

/**
 * The monitor e2e files' fleet (decision 022): an API in process and worker processes started per test, on a database
 * of the file's own (its workers' monitor sweep sets alarms for every monitor it finds, and on the shared test database
 * that would tick other files' monitors, and theirs this file's). Registers the file's hooks; read it inside tests.
 */
export function useMonitorFleet(): MonitorFleet {
  const fleet = {} as MonitorFleet;
  const workers: WorkerProcess[] = [];
  let database: Awaited<ReturnType<typeof ownDatabase>> | undefined;

  async function stop(worker: WorkerProcess) {
    if (worker.exitCode !== null || worker.signalCode !== null) return;
    const exited = once(worker, 'exit');
    worker.kill('SIGTERM');
    await exited;
  }

  fleet.startWorkers = async (n) => {
    const { config } = fleet.world;
    const started = Array.from({ length: n }, () =>
      startWorkerProcess({
        DATABASE_URL: config.database.url,
        REDIS_URL: config.redis.url,
        QUEUE_PREFIX: config.redis.queuePrefix,
        WORKER_QUEUES: 'google_maps',
        SANDBOX_PAGE_DELAY_MS: '5',
        MONITOR_MIN_INTERVAL_MS: '1000',
        MONITOR_SWEEP_MS: '500',
        MONITOR_LOST_AFTER_MS: '1000',
      }),
    );
    workers.push(...started);
    await Promise.all(started.map((w) => w.ready));
  };
  fleet.stopWorkers = async () => void (await Promise.all(workers.splice(0).map(stop)));
  fleet.wipeRedis = async () => {
    const redis = new Redis(fleet.world.config.redis.url);
    try {
      let removed = 0;
      for await (const keys of redis.scanStream({ match: `*${fleet.world.config.redis.queuePrefix}*`, count: 500 })) {
        if ((keys as string[]).length > 0) removed += await redis.del(...(keys as string[]));
      }
      return removed;
    } finally {
      redis.disconnect();
    }
  };

  beforeAll(async () => {
    database = await ownDatabase();
    fleet.world = await startWorld({ worker: false, env: { DATABASE_URL: database.url, MONITOR_MIN_INTERVAL_MS: '1000' } });
    fleet.account = await buildAccount(fleet.world.db, { credits: 100_000 });
  }, 60_000);
  afterEach(() => fleet.stopWorkers());
  afterAll(async () => {
    await fleet.world?.close();
    await database?.drop();
  });
  return fleet;
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropDatabase, migrate } from '@leadgen/db';
import { freePort } from '@leadgen/testing';
import { scratchDatabaseUrls } from '../runtime-role';

import { startWorkerProcess, type WorkerProcess } from '@leadgen/testing';
import { startWorld, type TestWorld } from '../harness';

export { startWorkerProcess, type WorkerProcess } from '@leadgen/testing';

/** How hard the fault suite pushes: small in CI (FAULT_SCALE=ci), larger by hand (FAULT_SCALE=full). */
// `seconds` of chaos at most; then every job must end within `settleSeconds`. A job here takes ~10 s of
// its worker's time and two workers run 5 each, so the full run's 60 jobs need a minute of work alone.
export const SCALE =
  process.env.FAULT_SCALE === 'full' ? { jobs: 60, seconds: 90, settleSeconds: 180 } : { jobs: 30, seconds: 25, settleSeconds: 90 };

/**
 * A database of the fault test's own, migrated by the owner, on the server DATABASE_URL names; `url` logs in as the
 * runtime role, as the suite's processes do (decision 035); dropped by `drop`.
 */
export async function ownDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const scratch = scratchDatabaseUrls(`leadgen_fault_${randomBytes(4).toString('hex')}`);
  await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
  return {
    url: scratch.runtimeUrl,
    drop: () => dropDatabase(scratch.ownerUrl),
  };
}

/**
 * The crash tests' fleet: a database of their own, an API without a worker, and worker processes started by
 * `spawn` (with short lock and lost-job timings, the test's own settings on top) and SIGKILLed at the end if alive.
 * Registers its own beforeAll and afterAll; read `world` and `database` inside the tests.
 */
export function workerFleet(): {
  readonly world: TestWorld;
  readonly database: { url: string };
  spawn(env: Record<string, string>): WorkerProcess;
  alive(): WorkerProcess[];
} {
  let database: Awaited<ReturnType<typeof ownDatabase>> | undefined;
  let world: TestWorld | undefined;
  const workers: WorkerProcess[] = [];
  const isAlive = (worker: WorkerProcess) => worker.exitCode === null && worker.signalCode === null;
  beforeAll(async () => {
    database = await ownDatabase();
    world = await startWorld({ worker: false, env: { DATABASE_URL: database.url } });
  }, 30_000);
  afterAll(async () => {
    for (const worker of workers) if (isAlive(worker)) worker.kill('SIGKILL');
    await world?.close();
    await database?.drop();
  });
  return {
    get world() {
      return world!;
    },
    get database() {
      return database!;
    },
    spawn(env) {
      const worker = startWorkerProcess({
        DATABASE_URL: database!.url,
        REDIS_URL: world!.config.redis.url,
        QUEUE_PREFIX: world!.config.redis.queuePrefix,
        WORKER_LOCK_MS: '1000',
        WORKER_STALLED_CHECK_MS: '500',
        LOST_JOB_AFTER_MS: '3000',
        LOST_JOB_SWEEP_MS: '2000',
        ...env,
      });
      workers.push(worker);
      return worker;
    },
    alive: () => workers.filter(isAlive),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a command as the `postgres` user when we are root (PostgreSQL refuses to run as root). */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function run(command: string, args: string[]): void {
  const [cmd, argv] = asPostgres(command, args);
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

const PG_BIN = (() => {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort() : [];
  const newest = versions[versions.length - 1];
  return newest ? `/usr/lib/postgresql/${newest}/bin` : '';
})();

/** A PostgreSQL cluster of the test's own on a free port (never the shared one), so it can be restarted. */
export async function ownPostgres(): Promise<{ url: string; restart(): Promise<void>; stop(): void }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-fault-pg-'));
  chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const port = await freePort();
  run(`${PG_BIN}/initdb`, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const ctl = (...args: string[]) => run(`${PG_BIN}/pg_ctl`, ['-D', data, '-w', '-l', path.join(dir, 'log'), ...args]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  ctl('-o', options, 'start');
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/leadgen`,
    // Asynchronous, so the test's own process (which may host the API) keeps answering meanwhile.
    restart: () =>
      new Promise<void>((resolve, reject) => {
        const [cmd, argv] = asPostgres(`${PG_BIN}/pg_ctl`, [
          '-D',
          data,
          '-w',
          '-l',
          path.join(dir, 'log'),
          '-m',
          'fast',
          '-o',
          options,
          'restart',
        ]);
        spawn(cmd, argv, { stdio: 'ignore' }).once('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`pg_ctl restart exited ${code}`)),
        );
      }),
    stop() {
      ctl('-m', 'immediate', 'stop');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis of the test's own on a free port, without persistence: stopping it wipes it. */
export async function ownRedis(): Promise<{ url: string; start(): Promise<void>; stop(): Promise<void> }> {
  const port = await freePort();
  let server: ChildProcess | null = null;
  const redis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      for (
        let i = 0;
        i < 100 &&
        spawnSync('redis-cli', ['-p', String(port), 'ping'])
          .stdout?.toString()
          .trim() !== 'PONG';
        i += 1
      )
        await sleep(50);
    },
    async stop() {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server?.kill('SIGKILL');
      await exited;
    },
  };
  await redis.start();
  return redis;
}

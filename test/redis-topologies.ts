import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Cluster, Redis } from 'ioredis';

/*
 * Local Redis topologies for the tests that must meet a real one: a Redis Cluster (three primaries,
 * three replicas) and a Sentinel set (a primary, a replica, three sentinels), each on free loopback
 * ports, nothing persisted, stopped with the test file. Failure detection is set short (1 s) so that a
 * failover takes a few seconds rather than the production defaults' tens of seconds.
 */

export interface HostPort {
  host: string;
  port: number;
}

interface RedisProcess {
  port: number;
  child: ChildProcess;
}

const HOST = '127.0.0.1';

/** A port free for a server and, for a cluster node, its bus port (port + 10000) too. */
async function freePorts(count: number, withBus: boolean): Promise<number[]> {
  const isFree = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer()
        .once('error', () => resolve(false))
        .listen(port, HOST, () => server.close(() => resolve(true)));
    });
  const ports: number[] = [];
  // Below 55535 so that the bus port exists; spread so concurrent files rarely meet.
  let port = 20_000 + Math.floor(Math.random() * 30_000);
  while (ports.length < count) {
    port += 1;
    if ((await isFree(port)) && (!withBus || (await isFree(port + 10_000)))) ports.push(port);
  }
  return ports;
}

function startServer(dir: string, port: number, args: string[]): RedisProcess {
  const child = spawn('redis-server', ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir, ...args], {
    stdio: 'ignore',
  });
  return { port, child };
}

async function answering(port: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const redis = new Redis({ host: HOST, port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      await redis.ping();
      return;
    } catch {
      if (Date.now() > until) throw new Error(`redis on port ${port} does not answer`);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      redis.disconnect();
    }
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function command(port: number, ...args: string[]): Promise<unknown> {
  const redis = new Redis({ host: HOST, port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.call(args[0]!, ...args.slice(1));
  } finally {
    redis.disconnect();
  }
}

function stopAll(processes: RedisProcess[], dir: string): void {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}

export interface LocalCluster {
  /** every node (primaries and replicas) */
  nodes: HostPort[];
  /** the environment that points the service at this cluster */
  env: Record<string, string>;
  /** the port of the primary that serves the slot of `key` now */
  primaryOf(key: string): Promise<number>;
  /** a node that does not serve the slot of `key` (a single-node client there gets MOVED) */
  nodeNotServing(key: string): Promise<number>;
  /** SIGKILLs the node on `port` and waits until its replica serves every slot again */
  killAndWaitForFailover(port: number): Promise<void>;
  stop(): void;
}

/** Six `redis-server --cluster-enabled yes` joined by `redis-cli --cluster create --cluster-replicas 1`. */
export async function startLocalCluster(): Promise<LocalCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-cluster-'));
  const ports = await freePorts(6, true);
  const processes = ports.map((port) =>
    startServer(dir, port, ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '1000']),
  );
  try {
    await Promise.all(ports.map((port) => answering(port)));
    const created = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `${HOST}:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout} ${created.stderr}`);
    await waitFor('cluster state ok on every node', async () => {
      const infos = await Promise.all(ports.map((port) => command(port, 'CLUSTER', 'INFO')));
      return infos.every((info) => String(info).includes('cluster_state:ok'));
    });
    // A replica that never synced is too stale to be promoted: the failover tests need them in sync.
    await waitFor('every replica in sync', async () => {
      const infos = (await Promise.all(ports.map((port) => command(port, 'INFO', 'replication')))).map(String);
      const replicas = infos.filter((info) => info.includes('role:slave'));
      return replicas.length === 3 && replicas.every((info) => info.includes('master_link_status:up'));
    });
  } catch (error) {
    stopAll(processes, dir);
    throw error;
  }
  const alive = () => processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  const slotOwner = async (key: string): Promise<number> => {
    const cluster = new Cluster(
      alive().map((p) => ({ host: HOST, port: p.port })),
      { clusterRetryStrategy: () => null },
    );
    cluster.on('error', () => undefined);
    try {
      await cluster.call('EXISTS', key);
      const slot = Number(await cluster.call('CLUSTER', 'KEYSLOT', key));
      const slots = (await cluster.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
      const range = slots.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`no node serves slot ${slot}`);
      return Number(range[2][1]);
    } finally {
      cluster.disconnect();
    }
  };
  return {
    nodes: ports.map((port) => ({ host: HOST, port })),
    env: { REDIS_CLUSTER_NODES: ports.map((p) => `${HOST}:${p}`).join(',') },
    primaryOf: slotOwner,
    async nodeNotServing(key) {
      const owner = await slotOwner(key);
      const roles = await Promise.all(
        alive().map(async (p) => ({ port: p.port, role: String(((await command(p.port, 'ROLE')) as unknown[])[0]) })),
      );
      return roles.find((r) => r.role === 'master' && r.port !== owner)!.port;
    },
    async killAndWaitForFailover(port) {
      const victim = processes.find((p) => p.port === port)!;
      victim.child.kill('SIGKILL');
      await new Promise((resolve) => victim.child.once('exit', resolve));
      // Until the others notice (the node timeout), the state still reads ok: wait for slots without the dead node.
      await waitFor(
        'a replica took over every slot',
        async () => {
          const views = await Promise.all(
            alive().map(async (p) => ({
              info: String(await command(p.port, 'CLUSTER', 'INFO')),
              slots: JSON.stringify(await command(p.port, 'CLUSTER', 'SLOTS')),
            })),
          );
          return views.every(
            (v) => v.info.includes('cluster_state:ok') && !v.slots.includes(`,${port},`) && !v.slots.includes(`,${port}]`),
          );
        },
        30_000,
      );
    },
    stop: () => stopAll(processes, dir),
  };
}

export interface LocalSentinels {
  env: Record<string, string>;
  /** the port of the primary the sentinels name now */
  primary(): Promise<number>;
  /** SIGKILLs the primary and waits until the sentinels name the replica in its place */
  killPrimaryAndWaitForFailover(): Promise<void>;
  stop(): void;
}

const SENTINEL_NAME = 'leadgen-test';

/** A primary, a replica and three `redis-server --sentinel` watching them (quorum 2). */
export async function startLocalSentinels(): Promise<LocalSentinels> {
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-sentinel-'));
  const [primaryPort, replicaPort, ...sentinelPorts] = await freePorts(5, false);
  const processes = [startServer(dir, primaryPort!, []), startServer(dir, replicaPort!, ['--replicaof', HOST, String(primaryPort)])];
  try {
    await Promise.all([answering(primaryPort!), answering(replicaPort!)]);
    for (const port of sentinelPorts) {
      // A sentinel rewrites its configuration file: each gets its own.
      const file = path.join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          `bind ${HOST}`,
          `sentinel monitor ${SENTINEL_NAME} ${HOST} ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
          `sentinel failover-timeout ${SENTINEL_NAME} 5000`,
          '',
        ].join('\n'),
      );
      processes.push({ port, child: spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' }) });
    }
    await Promise.all(sentinelPorts.map((port) => answering(port)));
    await waitFor('the replica in sync', async () =>
      String(await command(replicaPort!, 'INFO', 'replication')).includes('master_link_status:up'),
    );
    await waitFor('every sentinel knows the replica and the others', async () => {
      const views = await Promise.all(sentinelPorts.map((port) => command(port, 'SENTINEL', 'REPLICAS', SENTINEL_NAME)));
      const peers = await Promise.all(sentinelPorts.map((port) => command(port, 'SENTINEL', 'SENTINELS', SENTINEL_NAME)));
      return views.every((v) => (v as unknown[]).length === 1) && peers.every((p) => (p as unknown[]).length === 2);
    });
  } catch (error) {
    stopAll(processes, dir);
    throw error;
  }
  const primary = async () =>
    Number(((await command(sentinelPorts[0]!, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME)) as string[])[1]);
  return {
    env: { REDIS_SENTINELS: sentinelPorts.map((p) => `${HOST}:${p}`).join(','), REDIS_SENTINEL_NAME: SENTINEL_NAME },
    primary,
    async killPrimaryAndWaitForFailover() {
      const before = await primary();
      processes.find((p) => p.port === before)!.child.kill('SIGKILL');
      await waitFor(
        'the sentinels promoted the replica',
        async () => {
          const now = await primary();
          return now !== before && String(((await command(now, 'ROLE')) as unknown[])[0]) === 'master';
        },
        30_000,
      );
    },
    stop: () => stopAll(processes, dir),
  };
}

// One measured stretch of load: CPU per process kind, statements and commands, RSS and
// connections, taken before and after (and sampled during) the load. Everything here is read
// from the kernel, from PostgreSQL's and Redis's own counters, or from the count-sql.cjs preload.
import type { Redis } from 'ioredis';
import type { LoadResult } from './load';
import type { BenchProcess, Counts } from './processes';
import { readCpu, readRss, type PostgresCpu } from './proc-stats';

export type Kind = 'api' | 'worker';

export interface Measured {
  load: LoadResult;
  /** ms of CPU over the whole stretch, per kind */
  cpu: { api: number; worker: number; pg: number | null; pgCluster: number | null; redis: number | null; load: number };
  sql: number;
  /** of them, sent by API processes (the rest by workers) */
  sqlApi: number;
  sqlTx: number;
  /** commands the measured processes sent (count-sql.cjs) */
  redisClient: number;
  /** of them, by name and process kind (`api evalsha addStandardJob`) */
  redisByName: Record<string, number>;
  /** SQL statements by process kind and the function they call (`worker commit_slice`) */
  sqlByName: Record<string, number>;
  /** total_commands_processed delta of the whole Redis instance */
  redisInfo: number;
  /** peak RSS seen per kind (the largest single process of that kind), bytes */
  rss: { api: number; worker: number };
  pgPeak: number | null;
  /** bytes of WAL the PostgreSQL cluster inserted over the stretch (other users count); null without PostgreSQL */
  walBytes: number | null;
}

export interface Environment {
  redis: Redis;
  redisPid: number | null;
  pg: PostgresCpu | null;
  /** the cluster's WAL insert position in bytes (pg_current_wal_insert_lsn) */
  walPosition?: () => Promise<number>;
}

async function commandsProcessed(redis: Redis): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1] ?? 0);
}

/**
 * Runs `load` while watching `procs`. A sampler every 250 ms keeps each process's last CPU
 * reading (so one that exits mid-way still counts up to then), peak RSS and peak connections.
 */
export async function measure(
  env: Environment,
  procs: Array<{ kind: Kind; proc: BenchProcess }>,
  load: () => Promise<LoadResult>,
  options: { usesPostgres: boolean },
): Promise<Measured> {
  const cpuNow = (pid: number) => readCpu(pid)?.own;
  const start = new Map<number, number>();
  const last = new Map<number, number>();
  for (const { proc } of procs) {
    const v = cpuNow(proc.pid);
    if (v === undefined) continue;
    start.set(proc.pid, v);
    last.set(proc.pid, v);
  }
  const countsBefore = await Promise.all(procs.map(({ proc }) => proc.counts()));
  const infoBefore = await commandsProcessed(env.redis);
  const redisBefore = env.redisPid ? cpuNow(env.redisPid) : undefined;
  const pgBefore = env.pg?.scopedMs() ?? null;
  const pgClusterBefore = env.pg?.clusterMs() ?? null;
  const loadBefore = cpuNow(process.pid) ?? 0;
  const walBefore = options.usesPostgres && env.walPosition ? await env.walPosition() : null;

  const rss = { api: 0, worker: 0 };
  let pgPeak = env.pg ? env.pg.connections() : null;
  const sample = () => {
    for (const { kind, proc } of procs) {
      const v = cpuNow(proc.pid);
      if (v !== undefined) last.set(proc.pid, v);
      rss[kind] = Math.max(rss[kind], readRss(proc.pid) ?? 0);
    }
    if (env.pg) {
      env.pg.scopedMs();
      pgPeak = Math.max(pgPeak ?? 0, env.pg.connections());
    }
  };
  const sampler = setInterval(sample, 250);
  let result: LoadResult;
  try {
    result = await load();
  } finally {
    clearInterval(sampler);
  }
  sample();

  const loadAfter = cpuNow(process.pid) ?? 0;
  const walAfter = walBefore === null ? null : await env.walPosition!();
  const countsAfter = await Promise.all(procs.map(({ proc }) => proc.counts()));
  const infoAfter = await commandsProcessed(env.redis);
  const cpu = { api: 0, worker: 0 };
  for (const { kind, proc } of procs) cpu[kind] += (last.get(proc.pid) ?? 0) - (start.get(proc.pid) ?? last.get(proc.pid) ?? 0);
  const sum = (pick: (c: Counts) => number, kind?: Kind) =>
    countsAfter.reduce((s, c, i) => s + (kind && procs[i]!.kind !== kind ? 0 : Math.max(0, pick(c) - pick(countsBefore[i]!))), 0);
  const redisAfter = env.redisPid ? cpuNow(env.redisPid) : undefined;
  const byName = (pick: (c: Counts) => Record<string, number> | undefined) => {
    const out: Record<string, number> = {};
    countsAfter.forEach((c, i) => {
      for (const [name, n] of Object.entries(pick(c) ?? {})) {
        const more = n - (pick(countsBefore[i]!)?.[name] ?? 0);
        const key = `${procs[i]!.kind} ${name}`;
        if (more > 0) out[key] = (out[key] ?? 0) + more;
      }
    });
    return out;
  };
  const redisByName = byName((c) => c.redisByName);
  const sqlByName = byName((c) => c.sqlByName);
  return {
    load: result,
    cpu: {
      ...cpu,
      pg: pgBefore === null ? null : env.pg!.scopedMs() - pgBefore,
      pgCluster: pgClusterBefore === null ? null : env.pg!.clusterMs() - pgClusterBefore,
      redis: redisBefore === undefined || redisAfter === undefined ? null : redisAfter - redisBefore,
      load: loadAfter - loadBefore,
    },
    sql: sum((c) => c.sql),
    sqlApi: sum((c) => c.sql, 'api'),
    sqlTx: sum((c) => c.sqlTx),
    redisClient: sum((c) => c.redis),
    redisByName,
    sqlByName,
    // The bench's own INFO call is one of them: not worth subtracting at these counts.
    redisInfo: infoAfter - infoBefore,
    rss,
    // A baseline uses no PostgreSQL: the connections then open are the idle service's, not its own.
    pgPeak: options.usesPostgres ? pgPeak : null,
    walBytes: walBefore === null || walAfter === null ? null : walAfter - walBefore,
  };
}

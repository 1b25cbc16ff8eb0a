// Everything read from /proc: CPU (utime+stime) and RSS of the processes a scenario involves,
// including the PostgreSQL and Redis servers, which are not our children. Read from the kernel
// rather than asked of the processes, so a service rewrite cannot change what is measured.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/** USER_HZ: utime/stime are in clock ticks (100 per second on Linux almost everywhere; asked once). */
const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export interface ProcCpu {
  /** own user+system time, ms */
  own: number;
  /** user+system time of reaped children, ms (for the postmaster: backends that exited) */
  children: number;
  /** start time in ticks since boot: with the pid, names one process even if the pid is reused */
  startTicks: number;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null; // the process has exited: callers treat it as gone
  }
}

/** utime, stime, cutime, cstime are fields 14-17 of /proc/<pid>/stat, counted after the ")" ending comm (which may hold spaces). */
export function readCpu(pid: number): ProcCpu | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const tick = (i: number) => Number(fields[i - 3]);
  const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_S;
  return { own: ms(tick(14) + tick(15)), children: ms(tick(16) + tick(17)), startTicks: tick(22) };
}

/** Resident set size now, bytes. */
export function readRss(pid: number): number | null {
  const status = readText(`/proc/${pid}/status`);
  const kb = status && /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : null;
}

function cmdline(pid: number): string {
  return (readText(`/proc/${pid}/cmdline`) ?? '').replace(/\0/g, ' ').trim();
}

function ppid(pid: number): number | null {
  const stat = readText(`/proc/${pid}/stat`);
  return stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : null;
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/** The redis-server serving `port` (by its command line, `redis-server 127.0.0.1:6379`); else the only one. */
export function findRedisServer(port: number): number | null {
  const servers = allPids().filter((pid) => cmdline(pid).startsWith('redis-server'));
  return servers.find((pid) => cmdline(pid).includes(`:${port}`)) ?? (servers.length === 1 ? servers[0]! : null);
}

/** The postmaster: a `postgres` process (not a `postgres: ...` child) whose parent is not a postgres. */
export function findPostmaster(): number | null {
  const candidates = allPids().filter((pid) => /(^|\/)postgres(\s|$)/.test(cmdline(pid).split(' -')[0] ?? ''));
  return candidates.find((pid) => !candidates.includes(ppid(pid) ?? -1)) ?? candidates[0] ?? null;
}

/**
 * The postmaster's children with their process titles: client backends read
 * `postgres: 15/main: <user> <database> <host>(<port>) <state>`, auxiliary ones
 * `postgres: 15/main: walwriter` and the like.
 */
export function postgresChildren(postmaster: number): Array<{ pid: number; title: string }> {
  // The kernel's own list of children when it keeps one (CONFIG_PROC_CHILDREN): one read instead
  // of scanning every process, which the sampler would otherwise do ten times a second.
  const listed = readText(`/proc/${postmaster}/task/${postmaster}/children`);
  const pids =
    listed !== null ? listed.trim().split(/\s+/).filter(Boolean).map(Number) : allPids().filter((pid) => ppid(pid) === postmaster);
  return pids.map((pid) => ({ pid, title: cmdline(pid) })).filter((p) => p.title !== '');
}

/** A client backend's title names its host as `addr(port)` or `[local]`; auxiliary processes have none. */
export function isClientBackend(title: string): boolean {
  return /\(\d+\)|\[local\]/.test(title);
}

export function backendOfDatabase(title: string, database: string): boolean {
  return isClientBackend(title) && title.split(' ').includes(database);
}

/**
 * PostgreSQL's CPU two ways. Cluster-wide, as the kernel sees it: every process of the cluster
 * plus the postmaster's cutime/cstime (backends that exited meanwhile), which also counts other
 * users of a shared server. Bench-scoped: backends of the bench database (minus the bench's own
 * probe connection) and the auxiliary processes (WAL writer, checkpointer...) that our commits
 * wake; a backend that exits mid-scenario keeps the last value the sampler read.
 */
export class PostgresCpu {
  /** keyed by pid and start time: a pid the kernel reuses for a new backend is another process */
  private lastSeen = new Map<string, number>();

  constructor(
    private readonly postmaster: number,
    private readonly database: string,
    private readonly excludePids: () => number[],
  ) {}

  clusterMs(): number {
    const pm = readCpu(this.postmaster);
    let total = pm ? pm.own + pm.children : 0;
    for (const { pid } of postgresChildren(this.postmaster)) total += readCpu(pid)?.own ?? 0;
    return total;
  }

  /** Samples the scoped processes; the sum includes those that exited since they were last seen. */
  scopedMs(): number {
    const excluded = new Set(this.excludePids());
    for (const { pid, title } of postgresChildren(this.postmaster)) {
      if (excluded.has(pid)) continue;
      if (isClientBackend(title) && !backendOfDatabase(title, this.database)) continue;
      const cpu = readCpu(pid);
      if (cpu) this.lastSeen.set(`${pid}@${cpu.startTicks}`, cpu.own);
    }
    let total = 0;
    for (const v of this.lastSeen.values()) total += v;
    return total;
  }

  /** Connections to the bench database right now (the bench's probe excluded). */
  connections(): number {
    const excluded = new Set(this.excludePids());
    return postgresChildren(this.postmaster).filter((p) => !excluded.has(p.pid) && backendOfDatabase(p.title, this.database)).length;
  }
}

/**
 * The local TCP ports of a process's sockets: its fds name socket inodes, /proc/net/tcp{,6} maps
 * inodes to local addresses. Matched against pg_stat_activity.client_port, this says which
 * connections to PostgreSQL belong to that process, without asking the process.
 */
export function localTcpPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return new Set();
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (readText(table) ?? '').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols: sl local_address rem_address st tx:rx tr:tm retrnsmt uid timeout inode
      if (cols.length > 9 && inodes.has(cols[9]!)) ports.add(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

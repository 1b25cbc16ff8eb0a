import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '@leadgen/testing';
import { sleep } from './fault-world';

// Debian's pg_auto_failover (postgresql-N-auto-failover; .ci/run installs it): a monitor and two PostgreSQL nodes,
// each run by its own `pg_autoctl` keeper, on free loopback ports in a temporary directory. The monitor promotes
// the secondary when the primary stops answering; its health checks are shortened here (the defaults take ~50 s)
// so the test's failover is as quick as the tool allows. Decision 045 and docs/operations.md ("PostgreSQL failover").
const PG_BIN = (() => {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort() : [];
  const newest = versions[versions.length - 1];
  return newest ? `/usr/lib/postgresql/${newest}/bin` : '';
})();

const AUTOCTL = ['/usr/bin/pg_autoctl', `${PG_BIN}/pg_autoctl`].find((candidate) => existsSync(candidate));

// Monitor settings (pg_auto_failover's docs, "Configuring pg_auto_failover"): check every 500 ms, a node is
// unhealthy after 1.5 s without an answer, and an unreachable primary is not waited for beyond 2 s.
const MONITOR_SETTINGS = {
  'pgautofailover.health_check_period': '500',
  'pgautofailover.health_check_retry_delay': '250',
  'pgautofailover.health_check_max_retries': '1',
  'pgautofailover.health_check_timeout': '500',
  'pgautofailover.node_considered_unhealthy_timeout': '1500',
  'pgautofailover.primary_demote_timeout': '2000',
};

export interface AutoFailoverCluster {
  /** libpq's multi-host URL of the formation, primary first, target_session_attrs=read-write */
  url: string;
  /** kills the primary's keeper and PostgreSQL (SIGKILL: a host lost) and resolves once the other node takes writes */
  killPrimary(): Promise<{ killedAt: number; promotedAt: number; primary: string }>;
  stop(): void;
}

interface Node {
  name: string;
  port: number;
  pgdata: string;
  keeper: ChildProcess;
}

/** Runs as the `postgres` user when we are root (PostgreSQL refuses to run as root). */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startAutoFailover(): Promise<AutoFailoverCluster> {
  if (!AUTOCTL)
    throw new Error('pg_autoctl is missing: apt-get install postgresql-15-auto-failover (.ci/run installs it) to run this test');
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-fault-paf-'));
  chmodSync(dir, 0o777);
  const user = postgresUser();
  const env = {
    ...process.env,
    PATH: `${PG_BIN}:${process.env.PATH}`,
    PG_CONFIG: `${PG_BIN}/pg_config`,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'share'),
    XDG_RUNTIME_DIR: path.join(dir, 'run'),
  };
  for (const sub of ['config', 'share', 'run']) {
    mkdirSync(path.join(dir, sub));
    chmodSync(path.join(dir, sub), 0o777);
  }
  const keepers: ChildProcess[] = [];
  const pgdatas: string[] = [];
  const logs: Array<{ name: string; log: string[] }> = [];

  // `pg_autoctl create … --run`: creates the node, then stays in the foreground as its keeper, in a process group of
  // its own (detached) so that killing the group takes its sub-processes with it.
  const keeper = (name: string, args: string[]): ChildProcess => {
    const pgdata = path.join(dir, name);
    pgdatas.push(pgdata);
    const child = spawn(
      AUTOCTL,
      ['create', ...args, '--pgdata', pgdata, '--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--run'],
      {
        cwd: dir,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        ...user,
      },
    );
    const log: string[] = [];
    logs.push({ name, log });
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    keepers.push(child);
    return child;
  };

  const killGroup = (child: ChildProcess) => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const killPostmaster = (pgdata: string) => {
    const pidFile = path.join(pgdata, 'postmaster.pid');
    if (!existsSync(pidFile)) return;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    try {
      if (pid > 0) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const stop = () => {
    for (const child of keepers) killGroup(child);
    for (const pgdata of pgdatas) killPostmaster(pgdata);
    rmSync(dir, { recursive: true, force: true });
  };

  // A keeper that exits before the cluster is up (a bad option, a port taken) fails the wait at once.
  const until = (what: string, timeoutMs: number, ready: () => Promise<boolean>) =>
    waitFor(what, timeoutMs, async () => {
      const exited = keepers.find((k) => k.exitCode !== null || k.signalCode !== null);
      if (exited) throw Object.assign(new Error(`a pg_autoctl keeper exited (${exited.exitCode ?? exited.signalCode})`), { fatal: true });
      return ready();
    });

  try {
    const monitorPort = await freePort();
    keeper('monitor', ['monitor', '--pgport', String(monitorPort)]);
    const monitorUrl = `postgresql://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`;
    await until('the monitor', 30_000, async () => {
      await withClient(monitorUrl, (c) => c.query('SELECT 1 FROM pgautofailover.node LIMIT 1'));
      return true;
    });
    await withClient(monitorUrl, async (c) => {
      for (const [name, value] of Object.entries(MONITOR_SETTINGS)) await c.query(`ALTER SYSTEM SET ${name} = '${value}'`);
      await c.query('SELECT pg_reload_conf()');
    });
    const nodeUri = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;
    const nodes: Node[] = [];
    for (const name of ['node_a', 'node_b']) {
      const port = await freePort();
      const child = keeper(name, ['postgres', '--pgport', String(port), '--monitor', nodeUri, '--dbname', 'leadgen', '--name', name]);
      nodes.push({ name, port, pgdata: path.join(dir, name), keeper: child });
      // The first becomes the primary before the second joins as its secondary. The secondary's pg_basebackup
      // waits for a spread checkpoint (minutes on an idle server): a CHECKPOINT on the primary ends it at once.
      const primary = nodes[0]!;
      await until(`${name} to join`, 60_000, async () => {
        if (primary !== nodes[nodes.length - 1])
          await withClient(`postgresql://postgres@127.0.0.1:${primary.port}/leadgen`, (c) => c.query('CHECKPOINT')).catch(() => undefined);
        return (await states(monitorUrl)).some(
          (s) => s.name === name && s.reported === s.goal && ['single', 'primary', 'secondary'].includes(s.reported),
        );
      });
    }
    await until('a primary and a secondary', 60_000, async () => {
      const reported = (await states(monitorUrl)).map((s) => `${s.reported}/${s.goal}`).sort();
      return reported.join(' ') === 'primary/primary secondary/secondary';
    });

    const url = `postgresql://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/leadgen?target_session_attrs=read-write&connect_timeout=2`;
    return {
      url,
      async killPrimary() {
        const primaryName = (await states(monitorUrl)).find((s) => s.reported === 'primary')!.name;
        const primary = nodes.find((n) => n.name === primaryName)!;
        const standby = nodes.find((n) => n !== primary)!;
        const killedAt = Date.now();
        killGroup(primary.keeper);
        killPostmaster(primary.pgdata);
        await waitFor('the standby to take writes', 60_000, async () => {
          const readOnly = await withClient(`postgresql://postgres@127.0.0.1:${standby.port}/leadgen`, (c) =>
            c.query<{ ro: string }>("SELECT current_setting('transaction_read_only') AS ro"),
          );
          return readOnly.rows[0]!.ro === 'off';
        });
        return { killedAt, promotedAt: Date.now(), primary: primaryName };
      },
      stop,
    };
  } catch (error) {
    stop();
    throw new Error(`${(error as Error).message}\n${logs.map((l) => `--- ${l.name}\n${l.log.join('').slice(-1500)}`).join('\n')}`, {
      cause: error,
    });
  }
}

/** One connection for `fn`, closed after; a server that does not answer fails within `timeoutMs`. */
export async function withClient<T>(url: string, fn: (client: Client) => Promise<T>, timeoutMs = 2_000): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function states(monitorUrl: string): Promise<Array<{ name: string; reported: string; goal: string }>> {
  const { rows } = await withClient(monitorUrl, (c) =>
    c.query<{ name: string; reported: string; goal: string }>(
      'SELECT nodename AS name, reportedstate::text AS reported, goalstate::text AS goal FROM pgautofailover.node',
    ),
  );
  return rows;
}

async function waitFor(what: string, timeoutMs: number, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await ready()) return;
    } catch (error) {
      if ((error as { fatal?: boolean }).fatal) throw error;
      last = error;
    }
    await sleep(100);
  }
  throw new Error(`waited ${timeoutMs} ms for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

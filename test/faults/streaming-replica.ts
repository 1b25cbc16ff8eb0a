import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '@leadgen/testing';
import { withClient } from './pg-auto-failover';

// A throwaway primary (initdb) and its streaming standby (`pg_basebackup -R`), each on a free loopback port in a
// temporary directory, with the newest PostgreSQL binaries Debian installed. The machine's own cluster is never used:
// a base backup of it would copy every database on it. The standby logs every statement it runs (log_statement=all),
// so a test can tell which statements reached it. Decision 047 and docs/operations.md ("Read replicas").
const PG_BIN = (() => {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort() : [];
  const newest = versions[versions.length - 1];
  return newest ? `/usr/lib/postgresql/${newest}/bin` : '';
})();

export interface StreamingReplica {
  /** the primary's URL, database `leadgen` (created) */
  primaryUrl: string;
  /** the standby's URL, same database */
  replicaUrl: string;
  /** the statements the standby has logged so far (each `statement:` or `execute …:` entry, whole) */
  replicaStatements(): string[];
  /** pg_wal_replay_pause() / pg_wal_replay_resume() on the standby: it keeps receiving WAL but applies none */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** resolves once the standby has replayed everything the primary had written when it was called */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** stops the standby at once (pg_ctl -m immediate: a replica host lost) */
  stopStandby(): void;
  stop(): void;
}

/** Runs as the `postgres` user when we are root (PostgreSQL refuses to run as root). */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startStreamingReplica(): Promise<StreamingReplica> {
  if (!PG_BIN || !existsSync(`${PG_BIN}/pg_basebackup`))
    throw new Error('PostgreSQL server binaries are missing under /usr/lib/postgresql');
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-fault-replica-'));
  chmodSync(dir, 0o777);
  const user = postgresUser();
  const run = (binary: string, args: string[]) => {
    const result = spawnSync(`${PG_BIN}/${binary}`, args, { cwd: dir, encoding: 'utf8', timeout: 120_000, ...user });
    if (result.status !== 0) throw new Error(`${binary} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
  };
  const primaryData = path.join(dir, 'primary');
  const standbyData = path.join(dir, 'standby');
  const standbyLog = path.join(dir, 'standby.log');
  const started: string[] = [];
  const stop = () => {
    for (const data of started.reverse()) spawnSync(`${PG_BIN}/pg_ctl`, ['-D', data, '-m', 'immediate', 'stop'], { ...user });
    rmSync(dir, { recursive: true, force: true });
  };
  // Durability is not what this tests: no fsync, on either server.
  const common = (port: number) => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  try {
    const primaryPort = await freePort();
    const standbyPort = await freePort();
    // initdb's trust pg_hba.conf lets loopback replication connections in; wal_level is `replica` by default.
    run('initdb', ['-D', primaryData, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    run('pg_ctl', ['-D', primaryData, '-o', common(primaryPort), '-l', path.join(dir, 'primary.log'), '-w', 'start']);
    started.push(primaryData);
    const primaryUrl = `postgresql://postgres@127.0.0.1:${primaryPort}/leadgen`;
    await withClient(`postgresql://postgres@127.0.0.1:${primaryPort}/postgres`, (c) => c.query('CREATE DATABASE leadgen'), 5_000);
    // -R writes standby.signal and primary_conninfo; --checkpoint=fast: no wait for a spread checkpoint.
    run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      standbyData,
      '-R',
      '-X',
      'stream',
      '--checkpoint=fast',
    ]);
    run('pg_ctl', [
      '-D',
      standbyData,
      '-o',
      `${common(standbyPort)} -c log_statement=all -c hot_standby=on`,
      '-l',
      standbyLog,
      '-w',
      'start',
    ]);
    started.push(standbyData);
    const replicaUrl = `postgresql://postgres@127.0.0.1:${standbyPort}/leadgen`;
    const onStandby = <T>(fn: (c: Client) => Promise<T>) => withClient(replicaUrl, fn, 5_000);
    return {
      primaryUrl,
      replicaUrl,
      replicaStatements: () => statementsOf(readFileSync(standbyLog, 'utf8')),
      pauseReplay: () => onStandby((c) => c.query('SELECT pg_wal_replay_pause()')).then(() => undefined),
      resumeReplay: () => onStandby((c) => c.query('SELECT pg_wal_replay_resume()')).then(() => undefined),
      async caughtUp(timeoutMs = 30_000) {
        const { rows } = await withClient(primaryUrl, (c) => c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn'), 5_000);
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const replayed = await onStandby((c) =>
            c.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [rows[0]!.lsn]),
          );
          if (replayed.rows[0]!.ok) return;
          if (Date.now() > deadline) throw new Error(`the standby did not replay up to ${rows[0]!.lsn} within ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      stopStandby: () => {
        spawnSync(`${PG_BIN}/pg_ctl`, ['-D', standbyData, '-m', 'immediate', 'stop'], { ...user });
        started.splice(started.indexOf(standbyData), 1);
      },
      stop,
    };
  } catch (error) {
    const log = existsSync(standbyLog) ? readFileSync(standbyLog, 'utf8').slice(-1500) : '';
    stop();
    throw new Error(`${(error as Error).message}\n--- standby log\n${log}`, { cause: error });
  }
}

// PostgreSQL's default log_line_prefix ('%m [%p] '): each entry starts with its time; a statement's further lines do not.
const ENTRY = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/;

function statementsOf(log: string): string[] {
  const entries: string[] = [];
  for (const line of log.split('\n')) {
    if (ENTRY.test(line) || entries.length === 0) entries.push(line);
    else entries[entries.length - 1] += `\n${line}`;
  }
  return entries.filter((entry) => / LOG: {2}(statement|execute [^:]*):/.test(entry));
}

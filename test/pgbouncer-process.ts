import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/** Debian's pgbouncer, or '' where it is not installed (CI installs it: .ci/run). */
export const pgbouncerBinary =
  spawnSync('sh', ['-c', 'command -v pgbouncer || ls /usr/sbin/pgbouncer'], { encoding: 'utf8' }).stdout.trim().split('\n')[0] ?? '';

/** A command as the postgres user when run as root (PgBouncer refuses to run as root), else as it is. */
export const asUser = (command: string): string[] => (process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', command] : [command]);

/** Starts pgbouncer on `ini` and resolves once it accepts connections on `port` (10 s at most). */
export async function startPgBouncer(ini: string, port: number): Promise<ChildProcess> {
  const [command, ...args] = asUser(pgbouncerBinary);
  const child = spawn(command!, [...args, ini], { stdio: 'ignore' });
  const until = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return child;
    if (Date.now() > until || child.exitCode !== null) {
      child.kill('SIGTERM');
      throw new Error(`pgbouncer did not start on ${port}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

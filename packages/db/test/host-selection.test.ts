import net from 'node:net';
import { parsePostgresUrl } from '@leadgen/config';
import { createDatabase, NoSuitableHostError, selectHost, writableHostUrl } from '../src';

// A multi-host DATABASE_URL (decision 045) read by the service's own pool. Two TCP forwarders to the test's
// PostgreSQL stand for two servers: one is cut (its sockets destroyed, its port closed, as a killed host's) and the
// pool must go on through the other. Which host is a standby is checked against a real one in the fault suite
// (test/faults/postgres-failover.faults.ts); here, that a host that does not answer is passed over.
const TEST_DB = new URL(process.env.DATABASE_URL!);

interface Forwarder {
  port: number;
  /** connections it has taken */
  accepted: number;
  /** from now on it takes connections and never answers (a host whose packets are dropped) */
  blackhole(): void;
  cut(): Promise<void>;
}

async function forwarder(): Promise<Forwarder> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  let silent = false;
  const server = net.createServer((inbound) => {
    accepted += 1;
    if (silent) {
      sockets.add(inbound);
      inbound.on('error', () => undefined);
      return;
    }
    const outbound = net.connect(Number(TEST_DB.port || 5432), TEST_DB.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get accepted() {
      return accepted;
    },
    blackhole() {
      silent = true;
      for (const socket of sockets) socket.destroy();
    },
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** DATABASE_URL with these ports as its hosts, in order. */
function multiHost(ports: number[], query = 'target_session_attrs=read-write'): string {
  const auth = `${TEST_DB.username}${TEST_DB.password ? `:${TEST_DB.password}` : ''}@`;
  return `postgresql://${auth}${ports.map((port) => `127.0.0.1:${port}`).join(',')}${TEST_DB.pathname}?${query}`;
}

// A port nothing listens on: connecting is refused at once.
async function closedPort(): Promise<number> {
  const f = await forwarder();
  await f.cut();
  return f.port;
}

describe('a DATABASE_URL with several hosts', () => {
  it('when the first host does not answer, then the pool connects to the next one that takes writes', async () => {
    const dead = await closedPort();
    const live = await forwarder();
    const db = createDatabase(multiHost([dead, live.port]), { poolSize: 2 });
    try {
      const { rows } = await db.sql.query<{ port: number }>('SELECT inet_server_port() AS port');
      expect(rows[0]!.port).toBe(Number(TEST_DB.port || 5432));
      expect(await selectHost(parsePostgresUrl(multiHost([dead, live.port])))).toBe(1);
      expect(await writableHostUrl(multiHost([dead, live.port]))).toContain(`:${live.port}/`);
      // Prisma's adapter draws from the same pool.
      expect(await db.$queryRawUnsafe<Array<{ one: number }>>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.$disconnect();
      await live.cut();
    }
  });

  it('when the host in use is cut, then the statements in flight fail as an outage and the next ones go to the other host', async () => {
    const [first, second] = [await forwarder(), await forwarder()];
    const db = createDatabase(multiHost([first.port, second.port]), { poolSize: 2 });
    try {
      await db.sql.query('SELECT 1');
      const before = { first: first.accepted, second: second.accepted };
      expect(before.first).toBeGreaterThanOrEqual(2); // the probe and the pool's connection
      const inFlight = db.sql.query('SELECT pg_sleep(2)').then(
        () => null,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.cut();
      const failed = (await inFlight) as { message?: string } | null;
      expect(failed?.message).toMatch(/Connection terminated|ECONNRESET/);
      // The idle connection to the cut host is gone too; a new statement looks again and finds the second.
      expect(await db.$queryRawUnsafe<Array<{ one: number }>>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      expect(second.accepted).toBeGreaterThanOrEqual(before.second + 2);
      expect(first.accepted).toBe(before.first);
    } finally {
      await db.$disconnect();
      await second.cut();
    }
  });

  it('when the host in use stops answering, then the next statement goes to the other host after connect_timeout, not the system TCP timeout', async () => {
    const [first, second] = [await forwarder(), await forwarder()];
    const db = createDatabase(multiHost([first.port, second.port], 'target_session_attrs=read-write&connect_timeout=1'), {
      poolSize: 1,
    });
    try {
      await db.sql.query('SELECT 1');
      first.blackhole();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      // The pool's connection died with its socket; the next one asks both hosts, waits 1 s for the silent one, takes the other.
      expect(await db.$queryRawUnsafe<Array<{ one: number }>>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await db.$disconnect();
      await Promise.all([first.cut(), second.cut()]);
    }
  });

  it('when no host answers, then a connection fails with 08001, as libpq reports it, naming each host and never the password', async () => {
    const [a, b] = [await closedPort(), await closedPort()];
    const url = `postgresql://someone:s3cret-pw@127.0.0.1:${a},127.0.0.1:${b}${TEST_DB.pathname}?target_session_attrs=read-write`;
    const db = createDatabase(url, { poolSize: 1 });
    try {
      const error = (await db.sql.query('SELECT 1').catch((e: unknown) => e)) as NoSuitableHostError;
      expect(error).toBeInstanceOf(NoSuitableHostError);
      expect(error.code).toBe('08001');
      expect(error.message).toContain(`127.0.0.1:${a}`);
      expect(error.message).toContain(`127.0.0.1:${b}`);
      expect(error.message).not.toContain('s3cret-pw');
    } finally {
      await db.$disconnect();
    }
  });

  it('when the database does not exist yet, then a connection says so (3D000, not an outage), and db:migrate still finds the writable host', async () => {
    const dead = await closedPort();
    const live = await forwarder();
    // As db:migrate connects: the owner (the runtime role may log in to its own database only).
    const owner = new URL(process.env.DATABASE_OWNER_URL!);
    const auth = `${owner.username}${owner.password ? `:${owner.password}` : ''}`;
    const url = `postgresql://${auth}@127.0.0.1:${dead},127.0.0.1:${live.port}${owner.pathname}_not_yet?target_session_attrs=read-write`;
    try {
      await expect(selectHost(parsePostgresUrl(url))).rejects.toMatchObject({ code: '3D000' });
      expect(await writableHostUrl(url)).toBe(parsePostgresUrl(url).hostUrls[1]);
    } finally {
      await live.cut();
    }
  });

  it('when a host refuses the login, then that refusal is thrown, not an outage', async () => {
    const live = await forwarder();
    const url = multiHost([live.port]).replace(/^postgresql:\/\/[^@]*@/, 'postgresql://no_such_role_h39b@');
    try {
      await expect(selectHost(parsePostgresUrl(url))).rejects.toMatchObject({ code: '28000' });
    } finally {
      await live.cut();
    }
  });
});

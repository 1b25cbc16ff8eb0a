import net from 'node:net';
import { createDatabase, listAccountJobs, type Database, type JobListFilter, type ReplicaVerdict } from '../src';

// DATABASE_READ_URL's router (decision 047) where no standby is needed: unset, configured on a server that is no
// standby, and on one that does not answer. What a real standby serves, lags and refuses is proven against a streaming
// replica in the fault suite (test/faults/read-replica.faults.ts). These run as the runtime role (test/setup-env.ts):
// its lag probe must be allowed to ask the primary's WAL position.
const TEST_DB = process.env.DATABASE_URL!;
const FILTER: JobListFilter = { statuses: null, source: null, createdAfter: null, createdBefore: null, batchId: null };

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A host that takes connections and never answers (its packets dropped): a measure of it waits out the connect timeout. */
async function blackhole(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const dbs: Database[] = [];
afterAll(async () => {
  await Promise.all(dbs.map((db) => db.$disconnect()));
});
const open = (readUrl: string | null, onReadVerdict?: (verdict: ReplicaVerdict) => void) => {
  const db = createDatabase(TEST_DB, { poolSize: 2, readUrl, readMaxLagMs: 5_000, onReadVerdict });
  dbs.push(db);
  return db;
};

describe('DATABASE_READ_URL: where listings read', () => {
  it('when no read URL is set, then the reads are the primary pool itself, as before', () => {
    const db = open(null);
    expect(db.replica).toBeNull();
    expect(db.reads.sql).toBe(db.sql);
  });

  it('when the read URL is a server that is no standby (the primary itself), then it is not read from and the primary serves', async () => {
    const verdicts: ReplicaVerdict[] = [];
    const db = open(TEST_DB, (verdict) => verdicts.push(verdict));
    expect(await listAccountJobs(db.reads, 'no-such-account', FILTER, null, 10)).toEqual([]);
    expect(db.replica!.lastVerdict).toEqual({ useReplica: false, lagMs: null, reason: 'DATABASE_READ_URL is no standby' });
    expect(db.replica!.served).toMatchObject({ replica: 0, primary: 1 });
    // Said once (a log line), not per read.
    await listAccountJobs(db.reads, 'no-such-account', FILTER, null, 10);
    expect(verdicts).toEqual([db.replica!.lastVerdict]);
  });

  it('when the replica does not answer, then listings are served by the primary within its connect timeout', async () => {
    const url = new URL(TEST_DB);
    url.port = String(await closedPort());
    const db = open(url.toString());
    const started = Date.now();
    expect(await listAccountJobs(db.reads, 'no-such-account', FILTER, null, 10)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(db.replica!.lastVerdict.useReplica).toBe(false);
    expect(db.replica!.lastVerdict.reason).toMatch(/could not be measured/);
    // Measured once per second, not per read: the next reads do not wait for the dead host again.
    const again = Date.now();
    await listAccountJobs(db.reads, 'no-such-account', FILTER, null, 10);
    expect(Date.now() - again).toBeLessThan(500);
    expect(db.replica!.served.primary).toBe(2);
  });

  it('when the replica takes connections and never answers, then only the first read waits for its measure, and the next measures hold no read', async () => {
    const hole = await blackhole();
    try {
      const url = new URL(TEST_DB);
      url.port = String(hole.port);
      const db = open(url.toString());
      const first = Date.now();
      await listAccountJobs(db.reads, 'no-such-account', FILTER, null, 10);
      expect(Date.now() - first).toBeGreaterThanOrEqual(1_900); // the read pool's 2 s connect timeout
      expect(db.replica!.lastVerdict.useReplica).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      // The last measure is older than a second: this read starts the next one (which waits 2 s) and does not wait for it.
      const next = Date.now();
      await listAccountJobs(db.reads, 'no-such-account', FILTER, null, 10);
      expect(Date.now() - next).toBeLessThan(1_000);
      expect(db.replica!.served).toMatchObject({ replica: 0, primary: 2 });
    } finally {
      await hole.close();
    }
  });
});

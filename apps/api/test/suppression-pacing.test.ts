import { request } from 'node:http';
import { SUPPRESSION_CHUNK } from '@leadgen/db';
import { CONTENDED_CHUNK, exportPacing, type ExportYield } from '../src/http/export-pacing';
import { generateInFlight } from './support/generate-in-flight';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

// Issue 31, finding 3 (decision 035, amended): an admitted 100,000-entry upload was one statement that held a
// PostgreSQL backend's core, and the other accounts' calls, for seconds. It is now written SUPPRESSION_CHUNK entries a
// statement in one transaction, yielding before each statement while another request is in flight (the exports' pacing,
// decision 049). Deterministic as export-pacing.test.ts: the other account's request is a sync generate no worker
// takes, in flight for the whole upload; what is asserted is what the pacing recorded, and what was stored.
describe('suppression uploads yield to other accounts’ requests', () => {
  let world: TestWorld;
  let uploader: TestAccount;
  let other: TestAccount;
  const ENTRIES = 10 * SUPPRESSION_CHUNK;
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { SYNC_WAIT_MS: '60000' } });
    uploader = await buildAccount(world.db, { credits: 0 });
    other = await buildAccount(world.db, { credits: 10_000 });
  });
  afterAll(() => world.close());

  const port = () => (world.api.server.address() as { port: number }).port;

  /** PUT (or DELETE) `ENTRIES` emails starting at `from`, with the yields the pacing recorded meanwhile. */
  async function upload(from: number, method: 'PUT' | 'DELETE' = 'PUT') {
    const yields: ExportYield[] = [];
    const onYield = (y: ExportYield) => yields.push(y);
    exportPacing.on('yield', onYield);
    try {
      const emails = Array.from({ length: ENTRIES }, (_, i) => `person-${from + i}@list.example`);
      const res = await fetch(`http://127.0.0.1:${port()}/api/v1/suppressions`, {
        method,
        headers: { ...uploader.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ emails }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown>, yields };
    } finally {
      exportPacing.off('yield', onYield);
    }
  }

  it('when nothing else is in flight, then the upload never yields to a request and stores every entry', async () => {
    expect(exportPacing.others()).toBe(0);
    const alone = await upload(0);
    expect(alone.status).toBe(200);
    expect(alone.body).toMatchObject({ added: ENTRIES, counts: { email: ENTRIES } });
    expect(alone.yields.filter((y) => y.reason === 'requests')).toEqual([]);
  });

  it('when another account’s request is in flight, then the upload yields before each statement, and stores (and removes) all of it', async () => {
    const generate = await generateInFlight(port(), other.auth, 'upload-pacing');
    try {
      expect(exportPacing.others()).toBe(1);

      // Half of it held already: those are not new, and the kept counts say what the table holds.
      const contended = await upload(ENTRIES / 2);
      expect(contended.status).toBe(200);
      expect(contended.body).toMatchObject({ added: ENTRIES / 2, counts: { email: ENTRIES + ENTRIES / 2 } });
      const toRequests = contended.yields.filter((y) => y.reason === 'requests');
      // Before every statement, each with the generate in flight (never the upload's own request), and
      // its statements small (CONTENDED_CHUNK entries) while it waits: a statement is a short burst of the backend.
      expect(toRequests.length).toBeGreaterThanOrEqual(ENTRIES / CONTENDED_CHUNK);
      for (const y of toRequests) expect(y.others).toBeGreaterThanOrEqual(1);

      const removed = await upload(0, 'DELETE');
      expect(removed.status).toBe(200);
      expect(removed.body).toMatchObject({ removed: ENTRIES, counts: { email: ENTRIES / 2 } });
      expect(removed.yields.filter((y) => y.reason === 'requests').length).toBeGreaterThanOrEqual(ENTRIES / CONTENDED_CHUNK);
      expect(exportPacing.others()).toBe(1);
    } finally {
      await generate.release();
    }
    const { rows } = await world.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM suppressions WHERE account_id = $1', [
      uploader.accountId,
    ]);
    expect(rows[0]!.n).toBe(ENTRIES / 2);
  });

  it('when an upload of the account is at work, then its next one is refused (429) before its body is read', async () => {
    const generate = await generateInFlight(port(), other.auth, 'upload-busy');
    try {
      // The first upload is at work (writing, paced) once it first yields.
      const atWork = new Promise((resolve) => exportPacing.once('yield', resolve));
      const first = upload(100_000);
      await atWork;
      // The second declares 4 MB and sends 64 kB of it, never the rest: answered all the same, without its body.
      const second = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: port(),
            method: 'PUT',
            path: '/api/v1/suppressions',
            headers: { ...uploader.auth, 'content-type': 'application/json', 'content-length': String(4_000_000) },
          },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode!, connection: res.headers.connection });
            req.destroy();
          },
        );
        req.on('error', reject);
        req.write(Buffer.alloc(64 * 1024, 0x20));
      });
      expect(second).toEqual({ status: 429, connection: 'close' });
      expect((await first).status).toBe(200);
    } finally {
      await generate.release();
    }
  }, 30_000);
});

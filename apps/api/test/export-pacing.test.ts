import { exportPacing, CONTENDED_CHUNK, type ExportYield } from '../src/http/export-pacing';
import { exportWalkEvents, type ExportRead } from '../src/account-export-walk';
import { EventEmitter } from 'node:events';
import { generateInFlight } from './support/generate-in-flight';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, buildDeliveredJobs, type TestAccount } from '../../../test/factories';

// Decision 049: a download yields (stops reading its COPY, reads small chunks) while another request is in flight in
// the API process, and runs at full speed when nothing else waits. Deterministic: the other account's request is a sync
// generate that no worker takes, so it stays in flight (SYNC_WAIT_MS) for the whole download; what is asserted is what
// the pacing recorded, not a timing.
describe('exports yield to other accounts’ requests', () => {
  let world: TestWorld;
  let exporter: TestAccount;
  let other: TestAccount;
  const LEADS = 3_000;
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { SYNC_WAIT_MS: '60000' } });
    exporter = await buildAccount(world.db, { credits: 0 });
    other = await buildAccount(world.db, { credits: 10_000 });
    await buildDeliveredJobs(world.db, exporter.accountId, LEADS / 100, 100);
  });
  afterAll(() => world.close());

  const port = () => (world.api.server.address() as { port: number }).port;

  /** The whole CSV download, with the yields and the reads (their kind, how many at once) the pacing chose meanwhile. */
  async function download() {
    const yields: ExportYield[] = [];
    const reads: ExportRead[] = [];
    const onYield = (y: ExportYield) => yields.push(y);
    const onRead = (r: ExportRead) => reads.push(r);
    exportPacing.on('yield', onYield);
    exportWalkEvents.on('read', onRead);
    try {
      const res = await fetch(`http://127.0.0.1:${port()}/api/v1/leads?format=csv`, { headers: exporter.auth });
      const body = await res.text();
      return { status: res.status, rows: body.split('\r\n').filter(Boolean).length - 1, yields, reads };
    } finally {
      exportPacing.off('yield', onYield);
      exportWalkEvents.off('read', onRead);
    }
  }

  it('when nothing else is in flight, then the export never yields to a request', async () => {
    expect(exportPacing.others()).toBe(0);
    const alone = await download();
    expect(alone.status).toBe(200);
    expect(alone.rows).toBe(LEADS);
    // A loaded machine may lag the event loop (a yield of reason `lag`); no request was in flight to yield to.
    expect(alone.yields.filter((y) => y.reason === 'requests')).toEqual([]);
    // Issue 39: two ranges of whole jobs in flight at once (30 jobs of 100: two ranges of about 2,000 leads).
    expect(alone.reads.some((r) => r.kind === 'range' && r.inFlight === 2)).toBe(true);
    expect(alone.reads.every((r) => r.inFlight <= 2)).toBe(true);
  });

  it('when another account’s request is in flight, then the export pauses its COPY and reads small chunks until it ends, and delivers every lead', async () => {
    // The generate is in the API (counted) before the download starts.
    const generate = await generateInFlight(port(), other.auth, 'pacing');
    try {
      expect(exportPacing.others()).toBe(1);

      const contended = await download();
      expect(contended.status).toBe(200);
      expect(contended.rows).toBe(LEADS);
      const toRequests = contended.yields.filter((y) => y.reason === 'requests');
      // At least once before each small chunk (LEADS / CONTENDED_CHUNK of them), each with the generate in flight.
      expect(toRequests.length).toBeGreaterThanOrEqual(LEADS / CONTENDED_CHUNK);
      for (const y of toRequests) expect(y.others).toBeGreaterThanOrEqual(1);
      // Paused inside a COPY too (its stream not read while the generate waits), not only between chunks.
      expect(toRequests.some((y) => y.at === 'copy')).toBe(true);
      // One read at a time, each a small keyset chunk: never two COPYs while another request waits.
      expect(contended.reads.length).toBeGreaterThanOrEqual(LEADS / CONTENDED_CHUNK);
      expect(contended.reads.every((r) => r.kind === 'keyset' && r.inFlight === 1)).toBe(true);
      expect(exportPacing.others()).toBe(1); // still in flight: it was never the export's own request
    } finally {
      await generate.release();
    }
    for (let i = 0; i < 200 && exportPacing.others() > 0; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(exportPacing.others()).toBe(0);
  });

  it('when the event loop lags (a busy machine, no request waiting), then the export pauses but keeps its chunks whole', async () => {
    const pace = exportPacing.start(null);
    try {
      // The loop held 150 ms: the lag sampler's next tick is ~130 ms late (over LAG_MS), and the yield pauses
      // YIELD_RATIO × the ~150 ms the export was busy, ~600 ms, less than CONTENDED_FOR_MS: were a lag counted as a
      // waiter, the next chunk would still be small.
      const until = performance.now() + 150;
      while (performance.now() < until);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(await pace.chunk(2000)).toBe(2000);
      expect(pace.yields).toBe(1);
    } finally {
      pace.end();
    }
  });

  it('when it yielded to another request, then its next chunks are small', async () => {
    const own = new EventEmitter();
    exportPacing.track({} as never, own as never, () => undefined);
    const pace = exportPacing.start(null);
    const other = new EventEmitter();
    try {
      exportPacing.track({} as never, other as never, () => undefined);
      const size = pace.chunk(2000);
      other.emit('finish'); // ends the yield
      expect(await size).toBe(CONTENDED_CHUNK);
      expect(pace.yields).toBe(1);
    } finally {
      other.emit('finish');
      pace.end();
      own.emit('finish');
    }
  });
});

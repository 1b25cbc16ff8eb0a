import express from 'express';
import type { AddressInfo } from 'node:net';
import { inFlightLimit } from './in-flight-limit';

// API_IN_FLIGHT_REST_MIN_BUSY (decision 050): a place rests only while the process's loop is busy. The limiter alone,
// behind a stand-in for authentication (the account named by a header), with the loop's busy share given by the test.
const PER_ACCOUNT = 2;
const WAIT_MS = 1_000;
const HOLD_MS = 200;
const REST_MS = WAIT_MS / 4; // the most a place rests (rest 2 x HOLD_MS = 400, capped at a quarter of the wait)

async function serve(busy: number) {
  const app = express();
  app.use((req, res, next) => {
    res.locals.account = { id: req.header('x-account') };
    next();
  });
  app.use(inFlightLimit({ perAccount: PER_ACCOUNT, waitMs: WAIT_MS, rest: 2, restMinBusy: 0.5, busy: () => busy }));
  app.get('/hold/:ms', (req, res) => void setTimeout(() => res.end('ok'), Number(req.params.ms)));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hold = (account: string, ms: number) => fetch(`${base}/hold/${ms}`, { headers: { 'x-account': account } }).then((r) => r.status);
  return { hold, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Twice the places of one account, each held HOLD_MS, while another account holds one: the gap before the second two. */
async function secondPairGap(busy: number): Promise<number> {
  const { hold, close } = await serve(busy);
  try {
    const bystander = hold('acc_bystander', 2 * HOLD_MS + REST_MS + 500);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    const ends = await Promise.all(
      Array.from({ length: 2 * PER_ACCOUNT }, () => hold('acc_flood', HOLD_MS).then(() => Date.now() - started)),
    );
    expect(await bystander).toBe(200);
    const sorted = ends.sort((a, b) => a - b);
    // the limit held either way: the second two ended a whole HOLD_MS after the first two at least
    expect(sorted[PER_ACCOUNT]!).toBeGreaterThanOrEqual(2 * HOLD_MS - 20);
    return sorted[PER_ACCOUNT]! - sorted[PER_ACCOUNT - 1]! - HOLD_MS;
  } finally {
    await close();
  }
}

describe('a place rests only while the loop is busy (API_IN_FLIGHT_REST_MIN_BUSY)', () => {
  it('when the loop is busy and another account is present, then a place given back rests before the account takes it again', async () => {
    expect(await secondPairGap(0.9)).toBeGreaterThanOrEqual(REST_MS - 40);
  });

  it('when the loop is quiet, then no place rests though another account is present: two accounts that do not load the process cost each other nothing', async () => {
    expect(await secondPairGap(0.1)).toBeLessThan(REST_MS / 2);
  });
});

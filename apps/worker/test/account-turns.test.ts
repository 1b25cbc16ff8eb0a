import { generate, pollUntilTerminal, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount } from '../../../test/factories';
import { sleep } from '../../../test/faults/fault-world';

// Fair turns (decision 050): the fair share bounds an account's jobs in the queue, not what they take of a worker's
// one event loop. While the loop is busy (WORKER_BORROW_MAX_BUSY 0: always, so the test does not depend on this
// machine's speed) and another account has a job in the process, one account runs at most WORKER_TURNS_PER_ACCOUNT
// jobs there; the rest wait for a turn holding their slot, and all of them end.
const slow = (delayMs: number, n: number) => ({
  source: 'google_maps',
  category: `turns ${n}`,
  state: 'US',
  maxResults: 10,
  keyword: `sandbox:delay=${delayMs}`,
});

let world: TestWorld;
beforeAll(async () => {
  world = await startWorld({
    env: {
      WORKER_QUEUES: 'google_maps',
      WORKER_CONCURRENCY: '10',
      // Every job released at once (no held job, no borrowing): only the turns can keep one account's jobs apart.
      QUEUE_OPEN_JOBS_PER_ACCOUNT: '10',
      WORKER_TURNS_PER_ACCOUNT: '1',
      WORKER_BORROW_MAX_BUSY: '0',
      RATE_LIMIT_GENERATE_PER_MIN: '100000',
    },
  });
}, 60_000);
afterAll(() => world.close());

const turns = (accountId: string) => world.worker!.turns(accountId);
/** waits (bounded) until the account's jobs in the worker, running and waiting, add up to `n` */
async function taken(accountId: string, n: number): Promise<{ running: number; waiting: number }> {
  for (const until = Date.now() + 10_000; Date.now() < until; await sleep(50)) {
    const state = turns(accountId);
    if (state.running + state.waiting >= n) return state;
  }
  return turns(accountId);
}

describe('fair turns between accounts in a worker', () => {
  it('when another account has a job in the worker and the loop is busy, then a flood account runs one job at a time there, the others wait their turn, and every job ends', async () => {
    const other = await buildAccount(world.db);
    const flood = await buildAccount(world.db, { credits: 100_000 });
    const long = await generate(world, other, slow(4_000, 0), { Prefer: 'respond-async' });
    expect(long.status).toBe(202);
    expect(await taken(other.accountId, 1)).toEqual({ running: 1, waiting: 0 });

    const jobs: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await generate(world, flood, slow(1_500, i + 1), { Prefer: 'respond-async' });
      expect(res.status).toBe(202);
      jobs.push(res.body.jobId as string);
    }
    // All six are in the queue and the worker has slots for them: without turns six run; with them one runs while the
    // other account's job is there, and five wait their turn.
    expect(await taken(flood.accountId, 6)).toEqual({ running: 1, waiting: 5 });
    expect(turns(other.accountId)).toEqual({ running: 1, waiting: 0 });
    expect((await pollUntilTerminal(world, other, long.body.jobId as string, 20_000)).terminal.status).toBe('COMPLETE');
    for (const jobId of jobs) expect((await pollUntilTerminal(world, flood, jobId, 30_000)).terminal.status).toBe('COMPLETE');
  }, 60_000);

  it('when one account is alone in the worker, then its jobs run side by side however busy the loop is', async () => {
    const alone = await buildAccount(world.db, { credits: 100_000 });
    // The account of the test above had its last job end over a second ago.
    await sleep(1_100);
    const jobs: string[] = [];
    for (let i = 0; i < 4; i += 1)
      jobs.push((await generate(world, alone, slow(2_500, 10 + i), { Prefer: 'respond-async' })).body.jobId as string);
    expect(await taken(alone.accountId, 4)).toEqual({ running: 4, waiting: 0 });
    for (const jobId of jobs) expect((await pollUntilTerminal(world, alone, jobId, 30_000)).terminal.status).toBe('COMPLETE');
  }, 60_000);
});

import { ownRedis } from '../faults/fault-world';
import { freePort, startWorkerProcess, type WorkerProcess } from '@leadgen/testing';

// A Redis that is not there must not flood the logs (decision 023): each connection logs its first
// failure, then at most one line per interval with a count, while it reconnects with a growing delay.
// A worker holds about a dozen connections; before this bound it wrote thousands of lines a second.
const WATCH_MS = 10_000;
const MAX_LINES = 60;
const ALL_QUEUES = 'google_maps,linkedin,shopify,webhooks';

function lines(worker: WorkerProcess): string[] {
  return worker
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '');
}

describe('a worker whose Redis is dead', () => {
  const workers: WorkerProcess[] = [];
  afterAll(() => {
    for (const worker of workers) worker.kill('SIGKILL');
  });

  it(`when Redis dies under a running worker, or was never there (one node, every sentinel), then ${WATCH_MS / 1000} s write a bounded number of log lines`, async () => {
    const redis = await ownRedis();
    const running = startWorkerProcess({ REDIS_URL: redis.url, WORKER_QUEUES: ALL_QUEUES, LOST_JOB_SWEEP_MS: '1000' });
    const [dead, deadSentinelA, deadSentinelB] = await Promise.all([freePort(), freePort(), freePort()]);
    const neverThere = [
      startWorkerProcess({ REDIS_URL: `redis://127.0.0.1:${dead}`, WORKER_QUEUES: ALL_QUEUES }),
      startWorkerProcess({ REDIS_SENTINELS: `127.0.0.1:${deadSentinelA},127.0.0.1:${deadSentinelB}`, WORKER_QUEUES: ALL_QUEUES }),
    ];
    workers.push(running, ...neverThere);
    await running.ready;
    // A process takes a while to start on a loaded machine: the window opens once each has said it cannot connect.
    const until = Date.now() + 60_000;
    while (!neverThere.every((w) => lines(w).some((line) => line.includes('redis connection failing')))) {
      if (Date.now() > until)
        throw new Error(`a worker never said Redis fails:\n${neverThere.map((w) => w.output().slice(-1000)).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const before = workers.map((w) => lines(w).length);
    await redis.stop();
    await new Promise((r) => setTimeout(r, WATCH_MS));

    const written = workers.map((w, i) => lines(w).slice(before[i]));
    if (process.env.DEBUG_LOG_BOUND)
      process.stderr.write(`lines written: ${written.map((w) => w.length).join(', ')}\n${written[0]!.join('\n')}\n`);
    // Once per connection and state, then once per interval: not once per reconnect attempt.
    for (const output of written) expect(output.length).toBeLessThanOrEqual(MAX_LINES);
    for (const worker of neverThere) expect(lines(worker).length).toBeLessThanOrEqual(MAX_LINES);
    // The connections of the running worker each said they fail, not only one of them.
    expect(
      new Set(written[0]!.filter((l) => l.includes('redis connection failing')).map((l) => JSON.parse(l).connection)).size,
    ).toBeGreaterThanOrEqual(5);
  }, 120_000);
});

import { freePort, generate, pollUntilTerminal, startWorkerProcess, startWorld, type TestWorld, type WorkerProcess } from '../harness';
import { buildAccount, type TestAccount } from '../factories';

// A real worker process, probed on its operations port as a kubelet or Docker would probe it.

async function probe(port: number, pathName: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}${pathName}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function until<T>(what: string, attempt: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await attempt().catch((error: Error) => {
      if (error.message.startsWith('worker exited')) throw error;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('worker operations port', () => {
  let world: TestWorld;
  let account: TestAccount;
  let worker: WorkerProcess;

  beforeAll(async () => {
    world = await startWorld({ worker: false });
    account = await buildAccount(world.db, { credits: 10_000 });
  });
  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    await world.close();
  });

  it('when a worker runs, then it is live and ready; on SIGTERM it reports draining until it has finished its job', async () => {
    const port = await freePort();
    worker = startWorkerProcess({
      DATABASE_URL: world.config.database.url,
      REDIS_URL: world.config.redis.url,
      QUEUE_PREFIX: world.config.redis.queuePrefix,
      WORKER_QUEUES: 'google_maps',
      OPS_PORT: String(port),
      OPS_HOST: '127.0.0.1',
      SHUTDOWN_GRACE_MS: '15000',
    });
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));

    // Generous: tsx compiles the worker at start, and CI machines are shared.
    const ready = await until(
      'the worker to be ready',
      async () => {
        if (worker.exitCode !== null) throw new Error(`worker exited (${worker.exitCode})`);
        const res = await probe(port, '/readyz');
        return res.status === 200 ? res : undefined;
      },
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; worker output: ${worker.output().slice(-2000)}`);
    });
    expect(ready.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok', consumers: 'ok' } });
    expect(await probe(port, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    // The worker process's own metrics: process figures and the queues it consumes.
    const scraped = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(scraped).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(scraped).toMatch(/^leadgen_queue_consumers\{queue="google_maps"\} [1-9]/m);

    // A job the worker holds when SIGTERM comes: it keeps running it, and says it is draining meanwhile.
    const created = await generate(
      world,
      account,
      { category: 'dentist', state: 'US', maxResults: 30, keyword: 'sandbox:delay=300' },
      { Prefer: 'respond-async' },
    );
    const jobId = created.body.jobId as string;
    await until('the job to start', async () =>
      (await world.db.job.findUniqueOrThrow({ where: { id: jobId } })).deliveredCount > 0 ? true : undefined,
    );
    worker.kill('SIGTERM');
    const draining = await until('readiness to drop', async () => {
      const res = await probe(port, '/readyz');
      return res.status === 503 ? res : undefined;
    });
    expect(draining.body).toMatchObject({ status: 'shutting_down' });
    expect((await probe(port, '/healthz')).status).toBe(200);

    expect(await exited).toBe(0);
    const done = await pollUntilTerminal(world, account, jobId, 5_000);
    expect(done.status).toBe('COMPLETE');
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 120_000);
});

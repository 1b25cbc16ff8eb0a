// The batch section of `npm run bench`: one account's batch of N queries × 25 sandbox leads through the
// service's fleet, timed to its terminal status, its CPU per child from /proc, and another account's sync
// generate p50 during it against the same measured idle (the target: within 2×).
import { closedLoop, percentile, type HttpClient, type Task } from './load';
import type { BenchProcess } from './processes';
import { readCpu } from './proc-stats';

export interface BatchRun {
  children: number;
  /** from the 202 to the batch's terminal status */
  terminalMs: number;
  status: string;
  deliveredCount: number;
  /** API + worker processes' CPU over the batch, per child */
  cpuMsPerChild: number;
  idleP50: number | undefined;
  duringP50: number | undefined;
  duringRequests: number;
}

const cpuOf = (procs: BenchProcess[]) => procs.reduce((sum, p) => sum + (readCpu(p.pid)?.own ?? 0), 0);

export async function measureBatch(input: {
  client: HttpClient;
  batchAuth: Record<string, string>;
  otherAuth: Record<string, string>;
  procs: BenchProcess[];
  children: number;
  sampleMs: number;
  key: () => string;
  log: (line: string) => void;
}): Promise<BatchRun> {
  const { client, log } = input;
  const syncOther: Task = async (c) => {
    const res = await c.request(
      'POST',
      '/api/v1/leads/generate',
      { ...input.otherAuth, 'idempotency-key': input.key() },
      JSON.stringify({ category: 'florist', state: 'US', city: 'Boise', maxResults: 10 }),
    );
    return res.status === 200 ? { ok: true } : { ok: false, error: `sync generate answered ${res.status}` };
  };
  const idle = await closedLoop(client, 1, input.sampleMs, syncOther);

  const requests = Array.from({ length: input.children }, (_, i) => ({
    category: 'dentist',
    state: 'US',
    city: `Bench Town ${i}`,
    maxResults: 25,
  }));
  const cpuBefore = cpuOf(input.procs);
  const started = Date.now();
  const created = await client.request(
    'POST',
    '/api/v1/leads/batches',
    { ...input.batchAuth, 'idempotency-key': input.key() },
    JSON.stringify({ name: 'bench', requests }),
  );
  if (created.status !== 202) throw new Error(`batch creation answered ${created.status}: ${created.body.slice(0, 200)}`);
  const batchId = (JSON.parse(created.body) as { batchId: string }).batchId;
  log(`  batch ${batchId}: ${input.children} children accepted in ${Date.now() - started} ms`);

  // Another account's sync generates while the batch runs: sampled once the batch has had a moment to fill its slots.
  await new Promise((r) => setTimeout(r, 500));
  const during = await closedLoop(client, 1, input.sampleMs, syncOther);

  let body: { status: string; deliveredCount: number } = { status: 'running', deliveredCount: 0 };
  for (;;) {
    const res = await client.request('GET', `/api/v1/leads/batches/${batchId}`, input.batchAuth);
    body = JSON.parse(res.body) as typeof body;
    if (body.status !== 'running') break;
    if (Date.now() - started > 30 * 60_000) throw new Error('the batch did not finish within 30 minutes');
    await new Promise((r) => setTimeout(r, 250));
  }
  const terminalMs = Date.now() - started;
  const cpu = cpuOf(input.procs) - cpuBefore;
  return {
    children: input.children,
    terminalMs,
    status: body.status,
    deliveredCount: body.deliveredCount,
    // The other account's sync jobs ran in the same span: their CPU is a small share, counted in (said below).
    cpuMsPerChild: cpu / input.children,
    idleP50: percentile(idle.latencies, 50),
    duringP50: percentile(during.latencies, 50),
    duringRequests: during.okTotal,
  };
}

export function batchLines(run: BatchRun): string[] {
  const ratio = run.idleP50 && run.duringP50 ? run.duringP50 / run.idleP50 : NaN;
  return [
    `batch: ${run.children} queries × 25 sandbox leads, one account, default QUEUE_OPEN_JOBS_PER_ACCOUNT`,
    `  time to terminal ${(run.terminalMs / 1000).toFixed(1)} s (${run.status}, ${run.deliveredCount.toLocaleString('en')} leads); API + worker CPU ${run.cpuMsPerChild.toFixed(2)} ms per child (from /proc, the other account's probes included)`,
    `  another account's sync generate (10 leads) p50: idle ${run.idleP50?.toFixed(1) ?? '-'} ms, during the batch ${run.duringP50?.toFixed(1) ?? '-'} ms (${run.duringRequests} requests): ${ratio.toFixed(2)}× (target ≤ 2×)`,
  ];
}

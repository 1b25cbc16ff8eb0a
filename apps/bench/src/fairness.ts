// Fair queues (docs/decisions/020-fair-queues.md): another account's sync generate, idle and while one
// account has a backlog of 100 slow jobs, with the service's fair release (QUEUE_OPEN_JOBS_PER_ACCOUNT as
// configured) beside the same service first come, first served (QUEUE_OPEN_JOBS_PER_ACCOUNT=0: every job
// straight into BullMQ's FIFO list, as before). Each side runs its own API and one worker on a queue prefix
// of its own, so neither sees the other's jobs; the rest of the bench's workers are stopped first.
import { createBenchAccount } from './database';
import { HttpClient, percentile } from './load';
import { freePort } from '@leadgen/testing';
import { startProcess, waitForHttp, type BenchProcess } from './processes';

export interface FairnessSide {
  label: string;
  /** QUEUE_OPEN_JOBS_PER_ACCOUNT as set for the side ('' = the service's default) */
  cap: string;
  /** ms of each sync generate of the other account, idle and during the backlog, every answer included */
  idle: number[];
  backlog: number[];
  /** how many of the backlog-time answers were 202 (not finished within the call's wait) */
  backlog202: number;
  /** the heavy account's jobs in the queue (released) when the backlog was posted */
  released: number | null;
  refused?: string;
}

export interface FairnessOptions {
  databaseUrl: string;
  prefix: string;
  /** the bench's service environment with these variables on top */
  env: (extra: Record<string, string>) => NodeJS.ProcessEnv;
  track: (p: BenchProcess) => BenchProcess;
  probe: (sql: string, params: unknown[]) => Promise<Array<Record<string, unknown>>>;
  concurrency: number;
  backlogJobs: number;
  backlogDelayMs: number;
  samples: number;
  fifoSamples: number;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const QUICK_BODY = JSON.stringify({ source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 10 });

async function side(options: FairnessOptions, label: string, cap: string, samples: number): Promise<FairnessSide> {
  const result: FairnessSide = { label, cap, idle: [], backlog: [], backlog202: 0, released: null };
  const port = await freePort();
  const env = options.env({
    QUEUE_PREFIX: `${options.prefix}-fair-${label.replace(/\W+/g, '')}`,
    QUEUE_OPEN_JOBS_PER_ACCOUNT: cap,
    WORKER_CONCURRENCY: String(options.concurrency),
    WORKER_QUEUES: 'google_maps',
    SYNC_WAIT_MS: '10000',
  });
  const api = options.track(startProcess(`fairness api (${label})`, 'apps/api/src/main.ts', { ...env, PORT: String(port) }, []));
  const worker = options.track(startProcess(`fairness worker (${label})`, 'apps/worker/src/main.ts', env, []));
  const client = new HttpClient(`http://127.0.0.1:${port}`, 24);
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, api);
    const heavy = await createBenchAccount(options.databaseUrl, `bench-fair-heavy-${label}`);
    const other = await createBenchAccount(options.databaseUrl, `bench-fair-other-${label}`);
    let seq = 0;
    const headers = (apiKey: string, extra: Record<string, string> = {}) => ({
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': `fair-${label}-${seq++}`,
      ...extra,
    });
    const syncOnce = async (): Promise<{ ms: number; status: number }> => {
      const t0 = performance.now();
      const res = await client.request('POST', '/api/v1/leads/generate', headers(other.apiKey), QUICK_BODY);
      return { ms: performance.now() - t0, status: res.status };
    };
    // Warm-up until a job comes back whole: the worker is connected and both processes compiled.
    const until = Date.now() + 120_000;
    for (;;) {
      if (!worker.alive) throw new Error(`worker exited (code ${worker.exitCode}): ${worker.tail()}`);
      const answer = await syncOnce().catch(() => ({ ms: 0, status: 0 }));
      if (answer.status === 200) break;
      if (Date.now() > until) throw new Error('no sync generate answered 200 within 120 s');
      await sleep(250);
    }
    for (let i = 0; i < 5; i += 1) await syncOnce();

    for (let i = 0; i < samples; i += 1) result.idle.push((await syncOnce()).ms);

    // The backlog: one account's jobs of one slow page each (sandbox `delay=MS`, docs/api.md "Sandbox").
    const slowBody = JSON.stringify({
      source: 'google_maps',
      category: 'dentist',
      state: 'US',
      maxResults: 10,
      keyword: `sandbox:delay=${options.backlogDelayMs}`,
    });
    const backlog: string[] = [];
    let posted = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (posted < options.backlogJobs) {
          posted += 1;
          const res = await client.request('POST', '/api/v1/leads/generate', headers(heavy.apiKey, { prefer: 'respond-async' }), slowBody);
          if (res.status !== 202) throw new Error(`backlog generate answered ${res.status}: ${res.body.slice(0, 200)}`);
          backlog.push((JSON.parse(res.body) as { jobId: string }).jobId);
        }
      }),
    );
    // The heavy account's jobs in the queue or running, its share and what idle slots borrowed: the most seen
    // between the samples (borrowing takes up to the idle-slot filler's second to fill them).
    const released = async () =>
      Number(
        (
          await options.probe(
            `SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND status IN ('queued', 'running') AND released_at IS NOT NULL`,
            [heavy.accountId],
          )
        )[0]?.n ?? 0,
      );
    result.released = await released();
    for (let i = 0; i < samples; i += 1) {
      const answer = await syncOnce();
      result.backlog.push(answer.ms);
      if (answer.status === 202) result.backlog202 += 1;
      result.released = Math.max(result.released, await released());
    }
    // Leave nothing running: the backlog is cancelled (its queued entries removed, its running jobs stopped).
    await Promise.all(
      Array.from({ length: 10 }, async (_, k) => {
        for (let i = k; i < backlog.length; i += 10)
          await client.request('DELETE', `/api/v1/leads/jobs/${backlog[i]}`, { authorization: `Bearer ${heavy.apiKey}` });
      }),
    );
  } catch (error) {
    result.refused = (error as Error).message;
  } finally {
    await client.close().catch(() => undefined);
    await Promise.all([api.stop(8_000), worker.stop(8_000)]);
  }
  return result;
}

export async function measureFairness(options: FairnessOptions): Promise<FairnessSide[]> {
  const fair = await side(options, 'fair release', '', options.samples);
  // First come, first served: each answer waits the whole SYNC_WAIT_MS, so fewer samples.
  const fifo = await side(options, 'first come, first served', '0', options.fifoSamples);
  return [fair, fifo];
}

const p50 = (values: number[]) => percentile(values, 50);
const ms = (value: number | undefined) => (value === undefined ? '-' : `${value.toFixed(0)} ms`);

export function fairnessTable(
  sides: FairnessSide[],
  options: Pick<FairnessOptions, 'backlogJobs' | 'backlogDelayMs' | 'concurrency'>,
): string {
  const lines = [
    `Fairness: another account's sync generate (google_maps, 10 leads) p50, idle and while one account has ${options.backlogJobs} jobs of`,
    `one ${options.backlogDelayMs} ms page waiting; one worker, WORKER_CONCURRENCY=${options.concurrency}. "released" = the heavy account's jobs in the queue or running (its share and borrowed slots), the most seen.`,
    '',
    `${'side'.padEnd(28)}${'cap'.padEnd(10)}${'idle p50'.padStart(10)}${'backlog p50'.padStart(13)}${'ratio'.padStart(8)}${'202s'.padStart(8)}${'released'.padStart(10)}`,
  ];
  for (const s of sides) {
    if (s.refused) {
      lines.push(`${s.label.padEnd(28)}failed: ${s.refused.slice(0, 120)}`);
      continue;
    }
    const idle = p50(s.idle);
    const busy = p50(s.backlog);
    const ratio = idle && busy ? `${(busy / idle).toFixed(2)}x` : '-';
    lines.push(
      `${s.label.padEnd(28)}${(s.cap === '' ? 'default' : s.cap).padEnd(10)}${ms(idle).padStart(10)}${ms(busy).padStart(13)}${ratio.padStart(8)}${`${s.backlog202}/${s.backlog.length}`.padStart(8)}${String(s.released ?? '-').padStart(10)}`,
    );
  }
  const fair = sides[0];
  if (fair && !fair.refused) {
    const idle = p50(fair.idle);
    const busy = p50(fair.backlog);
    const met = idle !== undefined && busy !== undefined && busy <= 2 * idle;
    lines.push('', `target: backlog p50 within 2x of idle with fair release: ${met ? 'met' : 'NOT met'}`);
  }
  return lines.join('\n');
}
